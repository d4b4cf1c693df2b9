package topology

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

// TestTopology_GenerateUpgradePlanGivesTheControlPlaneSteps: with the class's
// generateUpgradePlanExtension, spec.topology.version may move two minor versions without
// spec.kubernetesVersions; the control plane takes the step the extension plans (the test
// extension's v1.38.0), and the upgrade plans in status list the extension's steps.
func TestTopology_GenerateUpgradePlanGivesTheControlPlaneSteps(t *testing.T) {
	ext := coretest.StartTestExtension(t, env, "upgrade-plan-ext", "")
	startControllerWith(t, nil, nil, ext.Runtime)
	ns, c, got := stableCluster(t)
	cc := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "quick-start"}, cc))
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.Upgrade.External.GenerateUpgradePlanExtension = "generate-upgrade-plan." + ext.Name
	})
	markReconciled(t, cc)

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.39.1" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrading to v1.38.0, then v1.39.1")
	require.Equal(t, "v1.38.0", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name), "spec", "version"))
	require.Equal(t, []string{"v1.38.0", "v1.39.1"}, got.Status.ControlPlane.UpgradePlan)
}

// TestTopology_GenerateUpgradePlanWorkersStepsLetTheWorkersSkipAMinor: an extension that answers
// workersUpgrades (here only the target) is followed: the control plane takes v1.38.0 and then
// v1.39.1 while the MachineDeployments stay at v1.37.2 (observed on every event; Capstan's own
// plan would first take them to v1.38.0), and they move once the control plane runs the target.
func TestTopology_GenerateUpgradePlanWorkersStepsLetTheWorkersSkipAMinor(t *testing.T) {
	ext := coretest.StartTestExtension(t, env, "workers-plan-ext", "")
	ext.Control(t, http.MethodPut, "/control/hooks/GenerateUpgradePlan", `{"workersUpgrades":["v1.39.1"]}`)
	startControllerWith(t, nil, nil, ext.Runtime)
	ns, c, got := stableCluster(t)
	cc := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "quick-start"}, cc))
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.Upgrade.External.GenerateUpgradePlanExtension = "generate-upgrade-plan." + ext.Name
	})
	markReconciled(t, cc)
	var released atomic.Bool
	stop := env.Observe(t, &clusterv1.MachineDeploymentList{}, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			if v := o.(*clusterv1.MachineDeployment).Spec.Template.Spec.Version; v != "v1.37.2" && (v != "v1.39.1" || !released.Load()) {
				return fmt.Errorf("MachineDeployment %s got %s", o.GetName(), v)
			}
		}
		return nil
	})
	defer stop()

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.39.1" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrading to v1.38.0, then v1.39.1")
	require.Equal(t, []string{"v1.39.1"}, got.Status.Workers.UpgradePlan, "the extension's workers' plan")
	cpName := got.Spec.ControlPlaneRef.Name
	setControlPlaneStatus(t, ns, cpName, "v1.38.0", 3, 3)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrading to v1.39.1")
	require.Equal(t, map[string]string{"md-0": "v1.37.2", "md-1": "v1.37.2"}, versionsOf(t, got), "the workers skip v1.38.0")

	released.Store(true)
	setControlPlaneStatus(t, ns, cpName, "v1.39.1", 3, 3)
	envtest.WaitFor(t, timeout, "md-0 at v1.39.1", func() (bool, error) {
		got, err := getCluster(c)
		return err == nil && versionsOf(t, got)["md-0"] == "v1.39.1", err
	})
}
