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

package etcdsnapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/etcdsnapshot"
)

var env *envtest.Environment

// The suite installs the kubeadm provider's CRDs from its config (read as files: the core does
// not import that module), so KubeadmControlPlanes are the real kind. No controller runs: the
// tests write the status a controller would.
func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{
		CRDs:              crds.All(),
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "..", "bootstrap-kubeadm", "config", "crd", "bases")},
	}, &env))
}

type result struct {
	stdout, stderr string
	code           int
}

// run executes capstanctl in-process against the envtest API server.
func run(t *testing.T, args ...string) result {
	t.Helper()
	path := ctltest.KubeconfigFile(t, env)
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, append(args, "--kubeconfig", path)...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// kcpCluster creates, in namespace, a KubeadmControlPlane name-cp (spec merged with extra
// under spec.kubeadmConfigSpec) and a Cluster name whose control plane it is.
func kcpCluster(t *testing.T, namespace, name string, kubeadmConfigSpec map[string]any) (*clusterv1.Cluster, *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	kcp := crds.New(etcdsnapshot.KubeadmControlPlaneGVK, namespace, name+"-cp")
	spec := map[string]any{
		"replicas": int64(1),
		"version":  "v1.37.2",
		"machineTemplate": map[string]any{"spec": map[string]any{"infrastructureRef": map[string]any{
			"apiGroup": crds.GenericInfrastructureMachineTemplateGVK.Group,
			"kind":     crds.GenericInfrastructureMachineTemplateGVK.Kind, "name": name}}},
	}
	if kubeadmConfigSpec != nil {
		spec["kubeadmConfigSpec"] = kubeadmConfigSpec
	}
	kcp.Object["spec"] = spec
	require.NoError(t, env.Client.Create(ctx, kcp))
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: crds.GenericInfrastructureClusterGVK.Group,
				Kind: crds.GenericInfrastructureClusterGVK.Kind, Name: name},
			ControlPlaneRef: clusterv1.ContractVersionedObjectReference{APIGroup: etcdsnapshot.KubeadmControlPlaneGVK.Group,
				Kind: etcdsnapshot.KubeadmControlPlaneGVK.Kind, Name: name + "-cp"},
		},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	return c, kcp
}

// initialize writes status.initialization.controlPlaneInitialized as the controller would.
func initialize(t *testing.T, kcp *unstructured.Unstructured) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, kcp, func() {
		require.NoError(t, unstructured.SetNestedField(kcp.Object, true, "status", "initialization", "controlPlaneInitialized"))
	})
}
