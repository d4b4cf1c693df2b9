//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/etcd"
)

// etcdSnapshot creates a ConfigMap in the workload cluster, then takes a snapshot of its etcd
// with capstanctl etcd snapshot (through the workload API server's port-forward, as the
// KubeadmControlPlane controller reaches etcd) and shows the file verifies (etcd's sha256, the
// bbolt database), holds a revision, and holds the ConfigMap.
func (s *suite) etcdSnapshot() {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "before-snapshot"},
		Data:       map[string]string{"written": "before the snapshot"},
	}
	require.NoError(s.t, s.workload.Create(s.ctx, cm))
	path := filepath.Join(s.t.TempDir(), s.name+".db")
	s.capstanctl("etcd", "snapshot", s.name, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--to", path)

	info, err := etcd.VerifySnapshot(path)
	require.NoError(s.t, err)
	require.Positive(s.t, info.Revision)
	s.t.Logf("snapshot: %d bytes, revision %d, %d keys, sha256 %s", info.Size, info.Revision, info.Keys, info.SHA256)
	key := "/registry/configmaps/" + cm.Namespace + "/" + cm.Name
	keys, err := etcd.SnapshotKeys(path, key)
	require.NoError(s.t, err)
	require.Contains(s.t, keys, key, "the ConfigMap created before the snapshot is in it")
	s.scheduledEtcdSnapshot(key)
}

// scheduledEtcdSnapshot schedules snapshots on the KubeadmControlPlane (every hour, into a
// directory of this host, where the local bootstrap-kubeadm manager runs): the first is taken at
// once, verifies, holds key, and EtcdSnapshotSucceeded names it; without the annotations the
// condition goes and no snapshot follows.
func (s *suite) scheduledEtcdSnapshot(key string) {
	root := s.t.TempDir()
	annotate := func(a map[string]any) {
		s.mergePatchControlPlane(map[string]any{"metadata": map[string]any{"annotations": a}})
	}
	annotate(map[string]any{"controlplane.cluster.x-k8s.io/etcd-snapshot-interval": "1h",
		"controlplane.cluster.x-k8s.io/etcd-snapshot-keep": "2", "controlplane.cluster.x-k8s.io/etcd-snapshot-directory": root})
	dir := filepath.Join(root, s.ns, s.name)
	var taken string
	s.waitFor(2*time.Minute, "a scheduled snapshot named by EtcdSnapshotSucceeded", func() (bool, string, error) {
		msg, status := s.kcpCondition("EtcdSnapshotSucceeded")
		entries, _ := os.ReadDir(dir)
		if status != "True" || len(entries) != 1 {
			return false, fmt.Sprintf("%s %s; %d files in %s", status, msg, len(entries), dir), nil
		}
		taken = filepath.Join(dir, entries[0].Name())
		return strings.Contains(msg, taken), msg, nil
	})
	_, err := etcd.VerifySnapshot(taken)
	require.NoError(s.t, err)
	keys, err := etcd.SnapshotKeys(taken, key)
	require.NoError(s.t, err)
	require.Contains(s.t, keys, key)

	annotate(map[string]any{"controlplane.cluster.x-k8s.io/etcd-snapshot-interval": nil,
		"controlplane.cluster.x-k8s.io/etcd-snapshot-keep": nil, "controlplane.cluster.x-k8s.io/etcd-snapshot-directory": nil})
	s.waitFor(time.Minute, "EtcdSnapshotSucceeded removed with the schedule", func() (bool, string, error) {
		msg, status := s.kcpCondition("EtcdSnapshotSucceeded")
		return status == "", status + " " + msg, nil
	})
}

// kcpCondition reads a condition of the KubeadmControlPlane: its message and status ("" when absent).
func (s *suite) kcpCondition(conditionType string) (message, status string) {
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(controlPlaneGVK)
	if err := s.mgmt.Get(s.ctx, s.kcpKey(), kcp); err != nil {
		return err.Error(), ""
	}
	c, err := conditions.UnstructuredGet(kcp, conditionType)
	if err != nil || c == nil {
		return fmt.Sprint(err), ""
	}
	return c.Message, string(c.Status)
}
