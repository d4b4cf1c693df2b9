package topology

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestTopology_ChainedUpgradeThroughTheClassVersions: with the ClusterClass's kubernetesVersions,
// spec.topology.version may move two minor versions at once. The control plane takes the newest
// listed patch of the minor between, then the target; the workers follow it minor by minor (never
// ahead of the version the control plane runs, never two minors behind it, observed on every
// MachineDeployment event); status.controlPlane.upgradePlan and status.workers.upgradePlan list
// what is left, and are gone once the upgrade is done.
func TestTopology_ChainedUpgradeThroughTheClassVersions(t *testing.T) {
	startController(t, nil, nil)
	ns, c, got := stableCluster(t)
	cpName := got.Spec.ControlPlaneRef.Name
	md0 := newMachine(t, machineDeployments(t, got)["md-0"], "v1.37.2")
	cc := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "quick-start"}, cc))
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.KubernetesVersions = []string{"v1.37.2", "v1.38.0", "v1.38.3", "v1.39.1"}
	})
	markReconciled(t, cc)

	var cpRunning, cpSpec atomic.Value // what the test, playing the control plane provider, runs
	cpRunning.Store("v1.37.2")
	cpSpec.Store("v1.37.2")
	stop := env.Observe(t, &clusterv1.MachineDeploymentList{}, ns, func(objs map[string]client.Object) error {
		running := version.MustParseSemantic(cpRunning.Load().(string))
		newest := version.MustParseSemantic(cpSpec.Load().(string))
		for _, o := range objs {
			md := o.(*clusterv1.MachineDeployment)
			v := version.MustParseSemantic(md.Spec.Template.Spec.Version)
			switch {
			case running.LessThan(v):
				return fmt.Errorf("MachineDeployment %s got %s while the control plane runs %s", md.Name, v, running)
			case v.Minor()+1 < newest.Minor():
				return fmt.Errorf("MachineDeployment %s at %s, two minor versions behind the control plane's %s", md.Name, v, newest)
			}
		}
		return nil
	})
	defer stop()

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.39.1" })
	cpSpec.Store("v1.38.3")
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrading to v1.38.3, then v1.39.1")
	require.Equal(t, "v1.38.3", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpName), "spec", "version"))
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, got.Status.ControlPlane.UpgradePlan)
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, got.Status.Workers.UpgradePlan)

	// The control plane runs v1.38.3: the workers must reach it before it takes the next step.
	cpRunning.Store("v1.38.3")
	setControlPlaneStatus(t, ns, cpName, "v1.38.3", 3, 3)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrade from v1.38.3 to v1.39.1 pending: MachineDeployments upgrading: md-0")
	require.Equal(t, map[string]string{"md-0": "v1.38.3", "md-1": "v1.37.2"}, versionsOf(t, got))
	require.Equal(t, []string{"v1.39.1"}, got.Status.ControlPlane.UpgradePlan)
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, got.Status.Workers.UpgradePlan)

	// md-0's Machine reaches v1.38.3, md-1 (no Machines) follows, then the control plane moves.
	envtest.Update(t, env.Client, md0, func() { md0.Spec.Version = "v1.38.3" })
	envtest.WaitFor(t, timeout, "every MachineDeployment at v1.38.3", func() (bool, error) {
		versions := versionsOf(t, got)
		if versions["md-0"] != "v1.38.3" || versions["md-1"] != "v1.38.3" {
			return false, fmt.Errorf("versions %v", versions)
		}
		return true, nil
	})
	cpSpec.Store("v1.39.1") // the observer's bound may lag the control plane's move, never lead it
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse, "Control plane upgrading to v1.39.1")
	require.Equal(t, "v1.39.1", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpName), "spec", "version"))

	cpRunning.Store("v1.39.1")
	setControlPlaneStatus(t, ns, cpName, "v1.39.1", 3, 3)
	envtest.WaitFor(t, timeout, "md-0 at v1.39.1", func() (bool, error) {
		if v := versionsOf(t, got)["md-0"]; v != "v1.39.1" {
			return false, fmt.Errorf("md-0 at %s", v)
		}
		return true, nil
	})
	envtest.Update(t, env.Client, md0, func() { md0.Spec.Version = "v1.39.1" })
	envtest.WaitFor(t, timeout, "every MachineDeployment at v1.39.1 and the plans gone", func() (bool, error) {
		got, err := getCluster(c)
		if err != nil {
			return false, err
		}
		versions := versionsOf(t, got)
		done := versions["md-0"] == "v1.39.1" && versions["md-1"] == "v1.39.1" &&
			(got.Status.ControlPlane == nil || got.Status.ControlPlane.UpgradePlan == nil) &&
			(got.Status.Workers == nil || got.Status.Workers.UpgradePlan == nil)
		if !done {
			return false, fmt.Errorf("versions %v, status %+v", versions, got.Status)
		}
		return true, nil
	})
}
