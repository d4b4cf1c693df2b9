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

// TestCoreManager_KilledWhileAnUpgradeHookHoldsConverges kills the core manager (SIGKILL) during
// the hold of every blocking upgrade hook of a topology Cluster with a control plane and a
// MachineDeployment: BeforeClusterUpgrade, BeforeControlPlaneUpgrade, AfterControlPlaneUpgrade,
// BeforeWorkersUpgrade, AfterWorkersUpgrade and AfterClusterUpgrade, in the order an upgrade asks
// them. After each kill the restarted manager asks that hook again and keeps holding what it
// guards: the ControlPlane's spec.version does not move before the control plane hooks let go, nor
// the MachineDeployment's before the workers' (every watch event is checked); the "after" hooks
// owed are neither lost nor skipped. Once the last lets go the upgrade ends with nothing owed.
func TestCoreManager_KilledWhileAnUpgradeHookHoldsConverges(t *testing.T) {
	ctx := t.Context()
	ns, ext, start := coreWithExtension(t, "kill-upgrade-hooks")
	mp, _ := start()
	c := createTopologyCluster(t, ns, true)
	cpName := waitControlPlaneRef(t, c)
	setGenericControlPlaneStatus(t, ns, cpName, "v1.37.2")
	const held = `{"retryAfterSeconds":2,"message":"held by the test"}`
	hooks := []string{"BeforeClusterUpgrade", "BeforeControlPlaneUpgrade", "AfterControlPlaneUpgrade",
		"BeforeWorkersUpgrade", "AfterWorkersUpgrade", "AfterClusterUpgrade"}
	for _, h := range hooks {
		require.NoError(t, ext.Set(ctx, h, held))
	}
	versions := watchKinds(t, ns, crds.GenericControlPlaneGVK, clusterv1.GroupVersion.WithKind("MachineDeployment"))
	var cpMoved, workersMoved bool // what the hooks let go of so far
	requireHeld := func(hook string) {
		t.Helper()
		waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, hook+": held by the test")
		mp.kill(t)
		var diag string
		mp, diag = start()
		waitHookCalled(t, diag, hook)
		waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, hook+": held by the test")
		require.Empty(t, versions.Drain(func(_ watch.Event, u *unstructured.Unstructured) bool {
			path := []string{"spec", "version"}
			moved := cpMoved
			if u.GetKind() == "MachineDeployment" {
				path, moved = []string{"spec", "template", "spec", "version"}, workersMoved
			}
			v, _, _ := unstructured.NestedString(u.Object, path...)
			return v != "v1.37.2" && !moved
		}), "nothing %s guards moved while it held, across the kill", hook)
		require.NoError(t, ext.Set(ctx, hook, `{}`))
	}

	updateCluster(t, c, func(c *clusterv1.Cluster) { c.Spec.Topology.Version = "v1.38.0" })
	requireHeld("BeforeClusterUpgrade")
	requireHeld("BeforeControlPlaneUpgrade")
	cpMoved = true // released: the ControlPlane takes v1.38.0
	waitVersion(t, crds.New(crds.GenericControlPlaneGVK, ns, cpName), "v1.38.0", "spec", "version")
	require.Contains(t, pendingHooks(t, c), "AfterControlPlaneUpgrade", "owed before the new version was applied")
	setGenericControlPlaneStatus(t, ns, cpName, "v1.38.0")
	requireHeld("AfterControlPlaneUpgrade")
	requireHeld("BeforeWorkersUpgrade")
	workersMoved = true // released: the MachineDeployment takes v1.38.0
	waitVersion(t, machineDeployment(t, c, "md-0"), "v1.38.0", "spec", "template", "spec", "version")
	requireHeld("AfterWorkersUpgrade")
	requireHeld("AfterClusterUpgrade")
	envtest.WaitFor(t, time.Minute, "the upgrade to end with nothing owed", func() (bool, error) {
		return pendingHooks(t, c) == "", nil
	})
}

// waitVersion waits until obj's version at path is want.
func waitVersion(t *testing.T, obj *unstructured.Unstructured, want string, path ...string) {
	t.Helper()
	envtest.WaitFor(t, time.Minute, obj.GetKind()+" "+obj.GetName()+" at "+want, func() (bool, error) {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return false, err
		}
		v, _, _ := unstructured.NestedString(obj.Object, path...)
		return v == want, nil
	})
}

// machineDeployment is c's MachineDeployment of topology name, as an unstructured object.
func machineDeployment(t *testing.T, c *clusterv1.Cluster, name string) *unstructured.Unstructured {
	t.Helper()
	list := &clusterv1.MachineDeploymentList{}
	require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(c.Namespace), client.MatchingLabels{
		clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyMachineDeploymentNameLabel: name}))
	require.Len(t, list.Items, 1, "the topology's MachineDeployment %s", name)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("MachineDeployment"))
	u.SetNamespace(c.Namespace)
	u.SetName(list.Items[0].Name)
	return u
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
