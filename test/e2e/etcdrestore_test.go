//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// etcdRestore restores the three-member etcd of the control plane from a snapshot: a ConfigMap
// written before the snapshot and deleted after it is back, one created after it is gone, new
// writes get resourceVersions above the bumped revision (so no watcher waits on revisions it has
// seen), the three members are healthy and the Cluster is resumed. The dry run before changes
// nothing.
func (s *suite) etcdRestore() {
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name}}
	}
	require.NoError(s.t, s.workload.Create(s.ctx, cm("restore-before")))
	path := filepath.Join(s.t.TempDir(), s.name+"-restore.db")
	s.capstanctl("etcd", "snapshot", s.name, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--to", path)
	require.NoError(s.t, s.workload.Delete(s.ctx, cm("restore-before")))
	require.NoError(s.t, s.workload.Create(s.ctx, cm("restore-after")))

	s.capstanctl("etcd", "restore", s.name, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--from", path, "--dry-run")
	require.NoError(s.t, s.workload.Get(s.ctx, client.ObjectKeyFromObject(cm("restore-after")), cm("restore-after")), "the dry run changed nothing")

	s.capstanctl("etcd", "restore", s.name, "-n", s.ns, "--kubeconfig", s.mgmtKubeconfig(), "--from", path)
	s.waitFor(3*time.Minute, "the ConfigMap of before the snapshot back, the one of after it gone", func() (bool, string, error) {
		errBefore := s.workload.Get(s.ctx, client.ObjectKeyFromObject(cm("restore-before")), cm("restore-before"))
		errAfter := s.workload.Get(s.ctx, client.ObjectKeyFromObject(cm("restore-after")), cm("restore-after"))
		return errBefore == nil && apierrors.IsNotFound(errAfter), fmt.Sprintf("before: %v, after: %v", errBefore, errAfter), nil
	})
	fresh := cm("restore-new-write")
	require.NoError(s.t, s.workload.Create(s.ctx, fresh))
	rv, err := strconv.ParseInt(fresh.ResourceVersion, 10, 64)
	require.NoError(s.t, err)
	require.Greater(s.t, rv, int64(1_000_000_000), "the restored store's revision was raised")

	cluster := &clusterv1.Cluster{}
	require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, cluster))
	require.Nil(s.t, cluster.Spec.Paused, "the restore resumed the Cluster")
	s.waitForThreeEtcdMembers()
}
