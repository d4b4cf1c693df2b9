package topology

import (
	"strings"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	runtimeclient "capstan.dev/core/internal/runtime/client"
)

// setStatus sets TopologyReconciled from what the reconcile found: upstream's ReconcileFailed
// with the error, a blocking reason, what an upgrade still has pending or is rolling out, or
// ReconcileSucceeded once the desired state is applied and settled.
func setStatus(s *scope, err error) {
	t := clusterv1.ClusterTopologyReconciledCondition
	switch {
	case err != nil:
		hint := ": fix the ClusterClass, its templates or the topology; the topology controller retries"
		if runtimeclient.KindOf(err) != "" { // a Runtime Extension's call failed: the class is not at fault
			hint = ": fix the Runtime Extension or its ExtensionConfig; the topology controller retries"
		}
		conditions.Set(s.cluster, conditions.False(t, clusterv1.ClusterTopologyReconciledFailedReason,
			strings.ReplaceAll(err.Error(), "\n", "; ")+hint))
	case s.blocked != nil:
		conditions.Set(s.cluster, conditions.False(t, s.blocked.reason, s.blocked.message))
	case s.applied && s.upgrade != nil && s.upgrade.Reason != "":
		conditions.Set(s.cluster, conditions.False(t, s.upgrade.Reason, s.upgrade.Message()))
	case s.applied:
		conditions.Set(s.cluster, conditions.True(t, clusterv1.ClusterTopologyReconciledSucceededReason, ""))
	}
	if s.applied && s.upgrade != nil {
		setUpgradePlans(s.cluster, s.upgrade.ControlPlaneUpgradePlan, s.upgrade.WorkersUpgradePlan)
	}
}

// setUpgradePlans publishes the versions the control plane and the workers still have to run in
// status.controlPlane.upgradePlan and status.workers.upgradePlan (removed once empty); the
// Cluster controller owns the rest of both and keeps the plans.
func setUpgradePlans(c *clusterv1.Cluster, controlPlane, workers []string) {
	if len(controlPlane) > 0 && c.Status.ControlPlane == nil {
		c.Status.ControlPlane = &clusterv1.ClusterControlPlaneStatus{}
	}
	if c.Status.ControlPlane != nil {
		c.Status.ControlPlane.UpgradePlan = controlPlane
	}
	if len(workers) > 0 && c.Status.Workers == nil {
		c.Status.Workers = &clusterv1.WorkersStatus{}
	}
	if c.Status.Workers != nil {
		c.Status.Workers.UpgradePlan = workers
	}
}
