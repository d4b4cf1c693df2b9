package clusterresourceset

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestClusterResourceSet_DeletionLeavesBindingsOfOthersAndReleasesResources: two
// ClusterResourceSets share a Cluster's binding and a ConfigMap. Deleting one removes its entry
// and owner reference from the binding and from the ConfigMap (which must not be garbage
// collected with it) and leaves the applied objects; deleting the other deletes the binding.
func TestClusterResourceSet_DeletionLeavesBindingsOfOthersAndReleasesResources(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	shared := f.newConfigMap("shared", map[string]string{"m": f.workloadConfigMap("shared", "1")})
	f.newConfigMap("own", map[string]string{"m": f.workloadConfigMap("own", "1")})
	a := f.newCRS("a", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("shared"), configMapRef("own"))
	b := f.newCRS("b", addonsv1.ClusterResourceSetStrategyReconcile, configMapRef("shared"))
	f.waitApplied("c1", a, configMapRef("shared"), configMapRef("own"))
	f.waitApplied("c1", b, configMapRef("shared"))
	envtest.WaitFor(t, timeout, "both ClusterResourceSets to own the shared ConfigMap", func() (bool, error) {
		err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(shared), shared)
		return err == nil && len(shared.OwnerReferences) == 2, err
	})

	require.NoError(t, env.Client.Delete(f.ctx, a))
	waitGone(t, a)
	binding, err := f.getBinding("c1")
	require.NoError(t, err)
	require.Len(t, binding.Spec.Bindings, 1)
	require.Equal(t, "b", binding.Spec.Bindings[0].ClusterResourceSetName)
	require.Equal(t, []string{"b"}, ownerNames(binding.OwnerReferences))
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(shared), shared))
	require.Equal(t, []string{"b"}, ownerNames(shared.OwnerReferences))
	own := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "own"}, own))
	require.Empty(t, own.OwnerReferences, "released, so the garbage collector keeps it")
	f.waitWorkloadConfigMap("own", "1") // applied objects stay

	require.NoError(t, env.Client.Delete(f.ctx, b))
	waitGone(t, b)
	_, err = f.getBinding("c1")
	require.True(t, apierrors.IsNotFound(err), "the binding left without entries is deleted: %v", err)
}

func waitGone(t *testing.T, crs *addonsv1.ClusterResourceSet) {
	t.Helper()
	envtest.WaitFor(t, timeout, "ClusterResourceSet "+crs.Name+" to be gone", func() (bool, error) {
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(crs), &addonsv1.ClusterResourceSet{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

func ownerNames(refs []metav1.OwnerReference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}
