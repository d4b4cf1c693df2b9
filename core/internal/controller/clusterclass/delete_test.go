package clusterclass

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

func topologyCluster(ns, name string, ref clusterv1.ClusterClassRef) *clusterv1.Cluster {
	return &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       clusterv1.ClusterSpec{Topology: clusterv1.Topology{ClassRef: ref, Version: "v1.37.2"}},
	}
}

// TestClusterClass_DeletionWaitsForTheClustersUsingIt: a class (reconciled with only its RBAC
// markers' rights) gets a finalizer; deleted while a Cluster of its namespace and one of another
// namespace (through classRef.namespace) use it, it stays, names both in Deleting and is still
// reconciled, so they keep working; it goes once the last one uses another class or is gone. A
// Cluster naming a class of the same name in its own namespace does not count.
func TestClusterClass_DeletionWaitsForTheClustersUsingIt(t *testing.T) {
	ns := env.CreateNamespace(t, "cc")
	other := env.CreateNamespace(t, "cc-other")
	startController(t, env.UserFromRBACMarkers(t, "capstan-cc-delete-rbac-test", "controller.go"), nil)
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cluster")
	newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers")
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "workers")
	cc := newClass(ns)
	create(t, cc)
	got := waitCondition(t, cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionTrue, "")
	envtest.WaitFor(t, timeout, "the class's finalizer", func() (bool, error) {
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cc), got)
		return err == nil && slices.Contains(got.Finalizers, clusterv1.ClusterClassFinalizer), err
	})

	local := topologyCluster(ns, "local", clusterv1.ClusterClassRef{Name: "quick-start"})
	remote := topologyCluster(other, "remote", clusterv1.ClusterClassRef{Name: "quick-start", Namespace: ns})
	create(t, local)
	create(t, remote)
	create(t, topologyCluster(other, "unrelated", clusterv1.ClusterClassRef{Name: "quick-start"}))
	require.NoError(t, env.Client.Delete(t.Context(), got))

	// The controller's cache can see the Delete before the Cluster created just before it in the
	// other namespace (a loaded machine showed it): wait until Deleting names both.
	envtest.WaitFor(t, timeout, "Deleting to name both Clusters that use the class", func() (bool, error) {
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cc), got)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.ClusterClassDeletingCondition)
		return c != nil && c.Status == metav1.ConditionTrue &&
			strings.Contains(c.Message, ns+"/local") && strings.Contains(c.Message, other+"/remote"), nil
	})
	deleting := conditions.Get(got, clusterv1.ClusterClassDeletingCondition)
	require.Equal(t, clusterv1.ClusterClassDeletingWaitingForClustersReason, deleting.Reason)
	require.True(t, strings.HasPrefix(deleting.Message,
		"Waiting for the Clusters using this ClusterClass to be deleted or to use another class (spec.topology.classRef): "), deleting.Message)
	require.NotContains(t, deleting.Message, "unrelated")

	// Still reconciled while held: a new variable is published for the Clusters that use it.
	envtest.Update(t, env.Client, got, func() {
		got.Spec.Variables = []clusterv1.ClusterClassVariable{{Name: "image", Required: ptr.To(false), Schema: schemaOf(t, `{"type":"string"}`)}}
	})
	envtest.WaitFor(t, timeout, "the deleting class's new variable to be published", func() (bool, error) {
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cc), got)
		return err == nil && got.Status.ObservedGeneration == got.Generation && len(got.Status.Variables) == 1, err
	})

	envtest.Update(t, env.Client, local, func() { local.Spec.Topology.ClassRef.Name = "another-class" })
	envtest.WaitFor(t, timeout, "Deleting to name only the remote Cluster", func() (bool, error) {
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cc), got)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.ClusterClassDeletingCondition)
		return c != nil && strings.HasSuffix(c.Message, ": "+other+"/remote"), nil
	})
	require.NoError(t, env.Client.Delete(t.Context(), remote))
	envtest.WaitFor(t, timeout, "the class to be gone once no Cluster uses it", func() (bool, error) {
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cc), &clusterv1.ClusterClass{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}
