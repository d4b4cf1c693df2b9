package managers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestCoreManager_KilledWhileAnUpgradeHookHoldsConverges kills the core manager (SIGKILL) while
// BeforeClusterUpgrade holds an upgrade of a topology Cluster, and again once the control plane
// runs the new version and AfterControlPlaneUpgrade, owed in the pending-hooks annotation, holds
// what follows. The restarted manager asks each hook again and keeps holding: the ControlPlane's
// spec.version does not move on any watch event while BeforeClusterUpgrade holds, and
// AfterControlPlaneUpgrade is neither lost nor skipped; once both let go, the upgrade ends with
// AfterClusterUpgrade and nothing owed.
func TestCoreManager_KilledWhileAnUpgradeHookHoldsConverges(t *testing.T) {
	ctx := t.Context()
	ns, ext, start := coreWithExtension(t, "kill-upgrade-hooks")
	mp, _ := start()
	c := createTopologyCluster(t, ns)
	cpName := waitControlPlaneRef(t, c)
	setGenericControlPlaneStatus(t, ns, cpName, "v1.37.2")

	const held = `{"retryAfterSeconds":2,"message":"held by the test"}`
	require.NoError(t, ext.Set(ctx, "BeforeClusterUpgrade", held))
	cps := watchKinds(t, ns, crds.GenericControlPlaneGVK)
	updateCluster(t, c, func(c *clusterv1.Cluster) { c.Spec.Topology.Version = "v1.38.0" })
	waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, "BeforeClusterUpgrade: held by the test")
	mp.kill(t)
	mp, diag := start()
	waitHookCalled(t, diag, "BeforeClusterUpgrade")
	waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, "BeforeClusterUpgrade: held by the test")
	require.Empty(t, cps.Drain(func(_ watch.Event, u *unstructured.Unstructured) bool {
		v, _, _ := unstructured.NestedString(u.Object, "spec", "version")
		return v != "v1.37.2"
	}), "the ControlPlane keeps its version while BeforeClusterUpgrade holds, across the kill")

	require.NoError(t, ext.Set(ctx, "AfterControlPlaneUpgrade", held))
	require.NoError(t, ext.Set(ctx, "BeforeClusterUpgrade", `{}`))
	envtest.WaitFor(t, time.Minute, "the ControlPlane at v1.38.0", func() (bool, error) {
		cp := crds.New(crds.GenericControlPlaneGVK, ns, cpName)
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cp), cp); err != nil {
			return false, err
		}
		v, _, _ := unstructured.NestedString(cp.Object, "spec", "version")
		return v == "v1.38.0", nil
	})
	require.Contains(t, pendingHooks(t, c), "AfterControlPlaneUpgrade", "owed before the new version was applied")
	setGenericControlPlaneStatus(t, ns, cpName, "v1.38.0")
	waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, "AfterControlPlaneUpgrade: held by the test")
	mp.kill(t)
	_, diag = start()
	waitHookCalled(t, diag, "AfterControlPlaneUpgrade")
	waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, "AfterControlPlaneUpgrade: held by the test")

	require.NoError(t, ext.Set(ctx, "AfterControlPlaneUpgrade", `{}`))
	envtest.WaitFor(t, time.Minute, "the upgrade to end with nothing owed", func() (bool, error) {
		return pendingHooks(t, c) == "", nil
	})
	last, err := ext.LastRequest(ctx, "AfterClusterUpgrade")
	require.NoError(t, err)
	require.Contains(t, last, `"kubernetesVersion":"v1.38.0"`, "AfterClusterUpgrade asked at the end")
}

// waitControlPlaneRef waits for the topology to have created c's ControlPlane and returns its name.
func waitControlPlaneRef(t *testing.T, c *clusterv1.Cluster) string {
	t.Helper()
	var name string
	envtest.WaitFor(t, time.Minute, "the topology's ControlPlane", func() (bool, error) {
		cur := &clusterv1.Cluster{}
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(c), cur); err != nil {
			return false, err
		}
		name = cur.Spec.ControlPlaneRef.Name
		return name != "", nil
	})
	return name
}

// setGenericControlPlaneStatus plays the control plane provider: version on its one replica,
// up to date and available.
func setGenericControlPlaneStatus(t *testing.T, ns, name, version string) {
	t.Helper()
	cp := crds.New(crds.GenericControlPlaneGVK, ns, name)
	envtest.UpdateStatus(t, env.Client, cp, func() {
		require.NoError(t, unstructured.SetNestedMap(cp.Object, map[string]any{
			"version": version, "replicas": int64(1), "upToDateReplicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1),
			"initialization": map[string]any{"controlPlaneInitialized": true},
		}, "status"))
	})
}

// updateCluster changes c as mutate says, retrying on conflicts.
func updateCluster(t *testing.T, c *clusterv1.Cluster, mutate func(*clusterv1.Cluster)) {
	t.Helper()
	cur := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(c), cur))
	envtest.Update(t, env.Client, cur, func() { mutate(cur) })
}

// pendingHooks is c's pending-hooks annotation, "" when none is owed.
func pendingHooks(t *testing.T, c *clusterv1.Cluster) string {
	t.Helper()
	cur := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(c), cur))
	return cur.Annotations[runtimev1.PendingHooksAnnotation]
}
