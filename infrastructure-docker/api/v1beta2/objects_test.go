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

package v1beta2_test

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// The builders below return minimal valid objects; tests change one thing to hit one rule.

func newDockerCluster(ns string) *infrav1.DockerCluster {
	return &infrav1.DockerCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dc1"}}
}

func newDockerClusterTemplate(ns string) *infrav1.DockerClusterTemplate {
	return &infrav1.DockerClusterTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dct1"}}
}

func newDockerMachine(ns string) *infrav1.DockerMachine {
	return &infrav1.DockerMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dm1"}}
}

func newDockerMachineTemplate(ns string) *infrav1.DockerMachineTemplate {
	return &infrav1.DockerMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dmt1"}}
}

func newDockerMachinePool(ns string) *infrav1.DockerMachinePool {
	return &infrav1.DockerMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dmp1"}}
}

func newDockerMachinePoolTemplate(ns string) *infrav1.DockerMachinePoolTemplate {
	return &infrav1.DockerMachinePoolTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dmpt1"}}
}

var templateMeta = clusterv1.ObjectMeta{
	Labels:      map[string]string{"tier": "infra"},
	Annotations: map[string]string{"example.com/owner": "team-a"},
}

// fullClusterSpec sets every field of DockerClusterSpec, so that a round trip through the
// apiserver proves none of them is pruned or rewritten.
func fullClusterSpec() infrav1.DockerClusterSpec {
	return infrav1.DockerClusterSpec{
		ControlPlaneEndpoint:     clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 40123},
		DockerClusterBackendSpec: fullClusterBackend(),
	}
}

// fullClusterBackend sets every Docker field of a DockerCluster (a DevCluster's backend.docker).
func fullClusterBackend() infrav1.DockerClusterBackendSpec {
	return infrav1.DockerClusterBackendSpec{
		FailureDomains: []clusterv1.FailureDomain{
			{Name: "fd-a", ControlPlane: ptr.To(true), Attributes: map[string]string{"rack": "1"}},
			{Name: "fd-b", ControlPlane: ptr.To(false)},
		},
		LoadBalancer: infrav1.DockerLoadBalancer{ImageMeta: infrav1.ImageMeta{ImageRepository: "registry.local:5000/capstan", ImageTag: "2.6.12-1_deb12u4"}},
	}
}

// fullMachineSpec sets every field of DockerMachineSpec but providerID, which templates refuse.
func fullMachineSpec() infrav1.DockerMachineSpec {
	return infrav1.DockerMachineSpec{DockerMachineBackendSpec: fullMachineBackend()}
}

// fullMachineBackend sets every Docker field of a DockerMachine (a DevMachine's backend.docker).
func fullMachineBackend() infrav1.DockerMachineBackendSpec {
	return infrav1.DockerMachineBackendSpec{
		CustomImage:   "capstan/node:v1.37.2",
		PreLoadImages: []string{"example.com/app:v1", "capstan/flannel:v0.27.4"},
		ExtraMounts: []infrav1.Mount{
			{ContainerPath: "/opt/data", HostPath: "/srv/data", ReadOnly: ptr.To(true)},
			{ContainerPath: "/scratch"},
		},
		BootstrapTimeout: &metav1.Duration{Duration: 90 * time.Second},
	}
}

// fullPoolTemplate sets every field of DockerMachinePoolMachineTemplate.
func fullPoolTemplate() infrav1.DockerMachinePoolMachineTemplate {
	m := fullMachineSpec()
	return infrav1.DockerMachinePoolMachineTemplate{CustomImage: m.CustomImage, PreLoadImages: m.PreLoadImages, ExtraMounts: m.ExtraMounts}
}
