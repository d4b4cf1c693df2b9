/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package kubeadm

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// Init returns the kubeadm configuration file of the first control plane node:
// "---" ClusterConfiguration "---" InitConfiguration.
func Init(spec bootstrapv1.KubeadmConfigSpec, c Cluster) ([]byte, error) {
	if c.KubernetesVersion == "" {
		// kubeadm would otherwise resolve "stable" over the network, which these nodes cannot reach.
		return nil, fmt.Errorf("%w: kubeadm init needs the Kubernetes version (the Machine's spec.version)", ErrIncomplete)
	}
	for i, t := range spec.InitConfiguration.BootstrapTokens {
		if !t.Expires.IsZero() {
			// The API refuses it; an object stored before that rule must not reach the node.
			return nil, fmt.Errorf("initConfiguration.bootstrapTokens[%d].expires: kubeadm refuses expires in its configuration file; use ttlSeconds", i)
		}
	}
	return Marshal(NewClusterConfiguration(spec.ClusterConfiguration, c), NewInitConfiguration(spec.InitConfiguration))
}

// Join returns the kubeadm configuration file of a joining node: "---" JoinConfiguration.
func Join(spec bootstrapv1.KubeadmConfigSpec, c Cluster, role Role) ([]byte, error) {
	join, err := NewJoinConfiguration(spec.JoinConfiguration, c, role)
	if err != nil {
		return nil, err
	}
	return Marshal(join)
}

// Marshal writes docs as one multi-document YAML file, each document introduced by "---".
func Marshal(docs ...any) ([]byte, error) {
	var out bytes.Buffer
	for _, doc := range docs {
		b, err := yaml.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("marshalling %T: %w", doc, err)
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.Bytes(), nil
}
