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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
	"capstan.dev/contracts/testing/etcdtest"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/etcdsnapshot"
)

// TestEtcdRestore_RefusesAndChangesNothing runs `capstanctl etcd restore` (in this suite: it
// shares the snapshot command's target checks) on what it must refuse: each fails naming what is
// wrong and what to do, and neither pauses the Cluster nor creates a Pod in the workload cluster
// (this API server is the steady cluster's workload cluster).
func TestEtcdRestore_RefusesAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "etcdrestore")
	steady := steadyKCPCluster(t, ns, "steady")
	rolling := steadyKCPCluster(t, ns, "rolling")
	rollingKCP := &unstructured.Unstructured{}
	rollingKCP.SetGroupVersionKind(etcdsnapshot.KubeadmControlPlaneGVK)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: rolling.Name + "-cp"}, rollingKCP))
	envtest.UpdateStatus(t, env.Client, rollingKCP, func() {
		require.NoError(t, unstructured.SetNestedField(rollingKCP.Object, int64(0), "status", "upToDateReplicas"))
	})
	deleting := steadyKCPCluster(t, ns, "deleting")
	gone := ctltest.Machine(t, env, deleting, "deleting-cp-1", map[string]string{clusterv1.ClusterNameLabel: "deleting", clusterv1.MachineControlPlaneLabel: ""})
	envtest.Update(t, env.Client, gone, func() { gone.Finalizers = []string{"test.capstan.dev/hold"} })
	require.NoError(t, env.Client.Delete(ctx, gone))
	t.Cleanup(func() { envtest.Update(t, env.Client, gone, func() { gone.Finalizers = nil }) })
	paused := steadyKCPCluster(t, ns, "paused")
	envtest.Update(t, env.Client, paused, func() { paused.Spec.Paused = ptr.To(true) })

	liveNS := &corev1.Namespace{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, liveNS))
	key, other := etcdtest.KubeSystemNamespace(t, "11111111-2222-3333-4444-555555555555")
	otherCluster := etcdtest.WriteSnapshot(t, map[string][]byte{key: other})
	corrupt := filepath.Join(t.TempDir(), "corrupt.db")
	require.NoError(t, os.WriteFile(corrupt, []byte("not a snapshot"), 0o600))

	tests := []struct {
		name, cluster, from, want string
	}{
		{"UnknownCluster", "absent", otherCluster, "cluster " + ns + "/absent not found"},
		{"SnapshotDoesNotVerify", "steady", corrupt, "--from: etcd snapshot is corrupt: " + corrupt + " has 14 bytes"},
		{"SnapshotMissing", "steady", filepath.Join(t.TempDir(), "absent.db"), "--from: opening the etcd snapshot"},
		{"SnapshotOfAnotherCluster", "steady", otherCluster, otherCluster + " is a snapshot of another cluster: its kube-system Namespace has UID 11111111-2222-3333-4444-555555555555, cluster " +
			ns + "/steady's has " + string(liveNS.UID)},
		{"ControlPlaneRollingOut", "rolling", otherCluster, "KubeadmControlPlane " + ns + "/rolling-cp is not steady (status.upToDateReplicas is 0, spec.replicas 1)"},
		{"ControlPlaneMachineDeleting", "deleting", otherCluster, "KubeadmControlPlane " + ns + "/deleting-cp is not steady (Machine deleting-cp-1 is being deleted)"},
		{"PausedByTheUser", "paused", otherCluster, "cluster " + ns + "/paused is paused (spec.paused): a restore pauses the Cluster while etcd is replaced and resumes it afterwards; resume it first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "etcd", "restore", tt.cluster, "-n", ns, "--from", tt.from)
			require.Equal(t, 1, r.code, r.stdout)
			require.Contains(t, r.stderr, tt.want)
			require.Empty(t, r.stdout)
		})
	}
	got := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(steady), got))
	require.Nil(t, got.Spec.Paused, "the Cluster was not paused")
	require.Empty(t, got.Annotations)
	pods := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, pods, client.InNamespace(metav1.NamespaceSystem)))
	require.Empty(t, pods.Items, "no restore Pod in the workload cluster")
}

// steadyKCPCluster is a Cluster whose one-replica KubeadmControlPlane is initialized and steady,
// whose control plane Machine has Node name-node, and whose workload cluster is this API server
// (with an etcd CA Secret: only its presence is checked before etcd is dialled).
func steadyKCPCluster(t *testing.T, ns, name string) *clusterv1.Cluster {
	t.Helper()
	c, kcp := kcpCluster(t, ns, name, nil)
	envtest.UpdateStatus(t, env.Client, kcp, func() {
		status := map[string]any{"initialization": map[string]any{"controlPlaneInitialized": true},
			"replicas": int64(1), "readyReplicas": int64(1), "upToDateReplicas": int64(1)}
		require.NoError(t, unstructured.SetNestedMap(kcp.Object, status, "status"))
	})
	m := ctltest.Machine(t, env, c, name+"-cp-0", map[string]string{clusterv1.ClusterNameLabel: name, clusterv1.MachineControlPlaneLabel: ""})
	envtest.UpdateStatus(t, env.Client, m, func() { m.Status.NodeRef = clusterv1.MachineNodeReference{Name: name + "-node"} })
	env.CreateKubeconfigSecret(t, c)
	require.NoError(t, env.Client.Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secret.Name(name, secret.EtcdCA)},
		Data:       map[string][]byte{secret.TLSCrtDataName: []byte("ca"), secret.TLSKeyDataName: []byte("key")},
	}))
	return c
}
