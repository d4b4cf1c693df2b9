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
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/core/internal/capstanctl/ctltest"
)

// TestEtcdSnapshot_RefusesWhatItCannotSnapshot runs the command on clusters it must refuse:
// each fails with a message naming what is wrong and what to do, prints nothing on stdout, and
// writes no file (nothing is dialled: none of these clusters has a workload API server).
func TestEtcdSnapshot_RefusesWhatItCannotSnapshot(t *testing.T) {
	ns := env.CreateNamespace(t, "etcdsnap")
	ctltest.Cluster(t, env, ns, "generic")
	kcpCluster(t, ns, "external", map[string]any{"clusterConfiguration": map[string]any{"etcd": map[string]any{
		"external": map[string]any{"endpoints": []any{"https://etcd.example:2379"},
			"caFile": "/etc/etcd/ca.crt", "certFile": "/etc/etcd/client.crt", "keyFile": "/etc/etcd/client.key"}}}})
	kcpCluster(t, ns, "new", nil)
	_, noNodes := kcpCluster(t, ns, "nonodes", nil)
	initialize(t, noNodes)
	existing := filepath.Join(t.TempDir(), "old.db")
	require.NoError(t, os.WriteFile(existing, []byte("keep me"), 0o600))

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"UnknownCluster", []string{"absent"}, "cluster " + ns + "/absent not found"},
		{"NotAKubeadmControlPlane", []string{"generic"},
			"cluster " + ns + "/generic's control plane is a GenericControlPlane (controlplane.cluster.x-k8s.io): only a KubeadmControlPlane's stacked etcd can be snapshotted"},
		{"ExternalEtcd", []string{"external"},
			"KubeadmControlPlane " + ns + "/external-cp uses an external etcd (spec.kubeadmConfigSpec.clusterConfiguration.etcd.external): Capstan does not reach it; back up the external etcd with its own tools"},
		{"NotInitialized", []string{"new"},
			"KubeadmControlPlane " + ns + "/new-cp is not initialized (status.initialization.controlPlaneInitialized is not true)"},
		{"NoMachineWithANode", []string{"nonodes"}, "cluster " + ns + "/nonodes has no control plane Machine with a Node"},
		{"NoClusterName", nil, "capstanctl etcd snapshot needs the Cluster name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"etcd", "snapshot"}, tt.args...)
			r := run(t, append(args, "-n", ns, "--to", filepath.Join(dir, "snap.db"))...)
			require.Equal(t, 1, r.code, r.stdout)
			require.Contains(t, r.stderr, tt.want)
			require.Empty(t, r.stdout)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, entries, "no file written")
		})
	}

	t.Run("ExistingDestination", func(t *testing.T) {
		_, kcp := kcpCluster(t, ns, "ready", nil)
		initialize(t, kcp)
		r := run(t, "etcd", "snapshot", "ready", "-n", ns, "--to", existing)
		require.Equal(t, 1, r.code, r.stdout)
		require.Contains(t, r.stderr, "--to: "+existing+" already exists: choose another destination")
		data, err := os.ReadFile(existing)
		require.NoError(t, err)
		require.Equal(t, "keep me", string(data))
	})
}
