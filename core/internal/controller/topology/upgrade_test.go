package topology

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// setControlPlaneStatus plays the control plane provider: status.version and the replica counts
// (upToDate may trail replicas, as during a rollout).
func setControlPlaneStatus(t *testing.T, ns, name, version string, replicas, upToDate int64) {
	t.Helper()
	cp := crds.New(crds.GenericControlPlaneGVK, ns, name)
	envtest.UpdateStatus(t, env.Client, cp, func() {
		require.NoError(t, unstructured.SetNestedMap(cp.Object, map[string]any{
			"version": version, "replicas": replicas, "upToDateReplicas": upToDate, "readyReplicas": replicas, "availableReplicas": replicas,
		}, "status"))
	})
}

// newMachine plays the MachineSet controller: a Machine of md at version.
func newMachine(t *testing.T, md *clusterv1.MachineDeployment, version string) *clusterv1.Machine {
	t.Helper()
	spec := md.Spec.Template.Spec
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: md.Namespace, Name: md.Name + "-m0", Labels: md.Spec.Template.Labels},
		Spec: clusterv1.MachineSpec{ClusterName: md.Spec.ClusterName, Version: version,
			Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap-data")}, InfrastructureRef: spec.InfrastructureRef},
	}
	require.NoError(t, env.Client.Create(t.Context(), m))
	return m
}

// stableCluster creates the quick-start class and a topology Cluster at v1.37.2, waits until it
// is generated, and plays the control plane provider: v1.37.2 on 3 up-to-date replicas.
func stableCluster(t *testing.T) (ns string, c, got *clusterv1.Cluster) {
	t.Helper()
	ns = env.CreateNamespace(t, "topology")
	quickStart(t, ns)
	c = topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	// Gone when the test ends: the controllers of later tests must not find an upgrade left half-way.
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(env.Client.Delete(context.Background(), c))) })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	setControlPlaneStatus(t, ns, got.Spec.ControlPlaneRef.Name, "v1.37.2", 3, 3)
	return ns, c, got
}

// versionsOf returns each topology MachineDeployment's version by topology name.
func versionsOf(t *testing.T, c *clusterv1.Cluster) map[string]string {
	out := map[string]string{}
	for name, md := range machineDeployments(t, c) {
		out[name] = md.Spec.Template.Spec.Version
	}
	return out
}

// TestTopology_UpgradesTheControlPlaneFirstThenOneMachineDeploymentAtATime: a change of
// spec.topology.version moves only the ControlPlane; the MachineDeployments never move while it
// upgrades or scales, and TopologyReconciled says so; once it is upgraded and stable they move
// one at a time (default concurrency 1), the next once the previous one's Machines run the new
// version. A worker added during the upgrade is created once the control plane is upgraded and
// stable, at the new version (upstream's pending create), never at the old one.
func TestTopology_UpgradesTheControlPlaneFirstThenOneMachineDeploymentAtATime(t *testing.T) {
	startController(t, env.UserFromRBACMarkers(t, "capstan-topology-upgrade-rbac-test", "controller.go"), nil)
	ns, c, got := stableCluster(t)
	cpName := got.Spec.ControlPlaneRef.Name
	md0 := newMachine(t, machineDeployments(t, got)["md-0"], "v1.37.2")

	var cpStable, md0Upgraded atomic.Bool
	stop := env.Observe(t, &clusterv1.MachineDeploymentList{}, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			md := o.(*clusterv1.MachineDeployment)
			name := md.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]
			switch v := md.Spec.Template.Spec.Version; {
			case name == "md-2": // created, not upgraded: no concurrency applies
				if v != "v1.38.0" || !cpStable.Load() {
					return fmt.Errorf("MachineDeployment md-2, added during the upgrade, exists at %s before the control plane was upgraded and stable", v)
				}
			case v == "v1.37.2":
			case !cpStable.Load():
				return fmt.Errorf("MachineDeployment %s got %s before the control plane was upgraded and stable", name, v)
			case name != "md-0" && !md0Upgraded.Load():
				return fmt.Errorf("MachineDeployment %s got %s while md-0 was still upgrading (concurrency 1)", name, v)
			}
		}
		return nil
	})
	defer stop()

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.38.0" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrading")
	require.Equal(t, clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason, conditionReason(got))
	require.Contains(t, conditionMessage(got), "Control plane upgrading to v1.38.0")
	require.Contains(t, conditionMessage(got), "MachineDeployment md-1 upgrade to v1.38.0 deferred: control plane upgrading")
	require.Equal(t, "v1.38.0", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpName), "spec", "version"))

	// A worker added while the control plane upgrades waits to be created.
	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Workers.MachineDeployments = append(got.Spec.Topology.Workers.MachineDeployments,
			clusterv1.MachineDeploymentTopology{Class: "default-worker", Name: "md-2"})
	})
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachineDeployment md-2 creation deferred: control plane upgrading")

	// The control plane runs the new version but still rolls out: the workers keep waiting.
	setControlPlaneStatus(t, ns, cpName, "v1.38.0", 4, 2)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane scaling")
	require.NotContains(t, versionsOf(t, got), "md-2")

	cpStable.Store(true)
	setControlPlaneStatus(t, ns, cpName, "v1.38.0", 3, 3)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachineDeployment md-1 upgrade to v1.38.0 deferred: upgrade concurrency 1 reached (upgrading: md-0)")
	require.Equal(t, clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason, conditionReason(got))
	require.Equal(t, map[string]string{"md-0": "v1.38.0", "md-1": "v1.37.2", "md-2": "v1.38.0"}, versionsOf(t, got))

	// md-0's Machine reaches the new version: md-1 follows, and the upgrade is done.
	md0Upgraded.Store(true)
	envtest.Update(t, env.Client, md0, func() { md0.Spec.Version = "v1.38.0" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Equal(t, map[string]string{"md-0": "v1.38.0", "md-1": "v1.38.0", "md-2": "v1.38.0"}, versionsOf(t, got))
}

// TestTopology_RefusesSkippingAMinorVersionAndABadConcurrency: a version two minors ahead
// leaves every object where it is and says how to proceed; an invalid upgrade-concurrency
// annotation is reported with its field path.
func TestTopology_RefusesSkippingAMinorVersionAndABadConcurrency(t *testing.T) {
	startController(t, nil, nil)
	ns, c, got := stableCluster(t)
	cpName := got.Spec.ControlPlaneRef.Name

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.39.0" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Control plane upgrade from v1.37.2 to v1.39.0 pending: spec.topology.version v1.39.0 is more than one minor version ahead of the control plane's v1.37.2: "+
			"upgrade one minor version at a time (v1.38.x first)")
	require.Equal(t, clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason, conditionReason(got))
	require.Equal(t, "v1.37.2", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpName), "spec", "version"))
	require.Equal(t, map[string]string{"md-0": "v1.37.2", "md-1": "v1.37.2"}, versionsOf(t, got))

	envtest.Update(t, env.Client, got, func() {
		got.Annotations = map[string]string{clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation: "none"}
	})
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		`metadata.annotations[topology.cluster.x-k8s.io/upgrade-concurrency]: Invalid value: "none": must be an integer of at least 1`)
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditionReason(got))
}

// TestTopology_HoldsOtherChangesWhileAnUpgradeIsPending: a variable change that rotates the
// workers' template, made together with a version change, does not reach a MachineDeployment while
// its upgrade waits for the control plane; it lands with the new version in one update (one
// rollout, not two), as upstream. Observed on every MachineDeployment event.
func TestTopology_HoldsOtherChangesWhileAnUpgradeIsPending(t *testing.T) {
	startController(t, nil, nil)
	ns, c, got := stableCluster(t)
	cpName := got.Spec.ControlPlaneRef.Name
	before := machineDeployments(t, got)["md-0"]
	oldTemplate := before.Spec.Template.Spec.InfrastructureRef.Name
	newMachine(t, before, "v1.37.2")

	stop := env.Observe(t, &clusterv1.MachineDeploymentList{}, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			md := o.(*clusterv1.MachineDeployment)
			spec := md.Spec.Template.Spec
			if md.Name == before.Name && (spec.InfrastructureRef.Name == oldTemplate) != (spec.Version == "v1.37.2") {
				return fmt.Errorf("MachineDeployment md-0 at %s with template %s: the version and the template change must land together", spec.Version, spec.InfrastructureRef.Name)
			}
		}
		return nil
	})
	defer stop()

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Version = "v1.38.0"
		got.Spec.Topology.Variables = []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:v2"`)}}
	})
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrading")
	require.Equal(t, oldTemplate, machineDeployments(t, got)["md-0"].Spec.Template.Spec.InfrastructureRef.Name)

	setControlPlaneStatus(t, ns, cpName, "v1.38.0", 3, 3)
	envtest.WaitFor(t, timeout, "md-0 at v1.38.0 with a new template", func() (bool, error) {
		spec := machineDeployments(t, got)["md-0"].Spec.Template.Spec
		if spec.Version != "v1.38.0" || spec.InfrastructureRef.Name == oldTemplate {
			return false, fmt.Errorf("md-0 at %s with template %s", spec.Version, spec.InfrastructureRef.Name)
		}
		return true, nil
	})
}

func conditionMessage(c *clusterv1.Cluster) string {
	for _, cond := range c.Status.Conditions {
		if cond.Type == clusterv1.ClusterTopologyReconciledCondition {
			return cond.Message
		}
	}
	return ""
}
