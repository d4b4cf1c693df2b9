package clusterresourcesetbinding

import (
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestBinding_DeletedWithItsClusterKeptForALiveOne: the binding of a live Cluster is left
// alone (reconciled, no write); the binding of a Cluster being deleted goes while the Cluster
// is still there (held by a finalizer), and the binding of a Cluster that does not exist goes.
func TestBinding_DeletedWithItsClusterKeptForALiveOne(t *testing.T) {
	ns := env.CreateNamespace(t, "crsb")
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSetBinding{}, Key: client.ObjectKey{Namespace: ns, Name: "live"}}
	startController(t, calls)
	newCluster(t, ns, "live")
	live := newBinding(t, ns, "live")
	waitReconciled(t, calls, 0)
	_, writes := calls.Snapshot()
	require.Empty(t, writes)
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(live), live))

	deleting := newCluster(t, ns, "deleting", func(c *clusterv1.Cluster) { c.Finalizers = []string{holdFinalizer} })
	b := newBinding(t, ns, "deleting")
	require.NoError(t, env.Client.Delete(t.Context(), deleting))
	waitBindingGone(t, b)
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(deleting), deleting), "the Cluster is still there")

	waitBindingGone(t, newBinding(t, ns, "never-existed"))
}

// TestBinding_KeptWhileTheClusterIsPaused: a paused Cluster's binding stays while the Cluster
// is being deleted, and goes once it is resumed; so does a binding with the paused annotation.
func TestBinding_KeptWhileTheClusterIsPaused(t *testing.T) {
	ns := env.CreateNamespace(t, "crsb")
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSetBinding{}, Key: client.ObjectKey{Namespace: ns, Name: "paused"}}
	startController(t, calls)
	paused := newCluster(t, ns, "paused", func(c *clusterv1.Cluster) {
		c.Finalizers = []string{holdFinalizer}
		c.Spec.Paused = new(true)
	})
	b := newBinding(t, ns, "paused")
	waitReconciled(t, calls, 0)
	gets, _ := calls.Snapshot()
	require.NoError(t, env.Client.Delete(t.Context(), paused))
	waitReconciled(t, calls, gets) // the Cluster's deletion was seen
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(b), b), "kept while paused")

	envtest.Update(t, env.Client, paused, func() { paused.Spec.Paused = new(false) })
	waitBindingGone(t, b)

	annotated := newBinding(t, ns, "gone-cluster", func(b *addonsv1.ClusterResourceSetBinding) {
		b.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	})
	// A paused binding is filtered out before any read: prove it by an unpaused twin going.
	waitBindingGone(t, newBinding(t, ns, "gone-too"))
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(annotated), annotated))
}

// TestBinding_KeptWhileATopologyClusterAwaitsOkToDelete: the binding of a deleting topology
// Cluster stays until the Cluster has the ok-to-delete annotation (a BeforeClusterDelete hook may
// still hold the deletion), then goes.
func TestBinding_KeptWhileATopologyClusterAwaitsOkToDelete(t *testing.T) {
	ns := env.CreateNamespace(t, "crsb")
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSetBinding{}, Key: client.ObjectKey{Namespace: ns, Name: "topo"}}
	startController(t, calls)
	c := newCluster(t, ns, "topo", func(c *clusterv1.Cluster) {
		c.Finalizers = []string{holdFinalizer}
		c.Spec.Topology = clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: "any"}, Version: "v1.37.2"}
	})
	b := newBinding(t, ns, "topo")
	waitReconciled(t, calls, 0)
	gets, _ := calls.Snapshot()
	require.NoError(t, env.Client.Delete(t.Context(), c))
	waitReconciled(t, calls, gets) // the Cluster's deletion was seen
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(b), b), "kept until ok-to-delete")

	envtest.Update(t, env.Client, c, func() { c.Annotations = map[string]string{runtimev1.OkToDeleteAnnotation: ""} })
	waitBindingGone(t, b)
}
