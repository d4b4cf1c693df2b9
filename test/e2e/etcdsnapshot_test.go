//go:build e2e

package e2e

import (
	"path/filepath"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
}
