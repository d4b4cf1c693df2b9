package topology

import (
	"strings"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus sets TopologyReconciled from what the reconcile found: upstream's ReconcileFailed
// with the error, a blocking reason, what an upgrade still has pending or is rolling out, or
// ReconcileSucceeded once the desired state is applied and settled.
func setStatus(s *scope, err error) {
	t := clusterv1.ClusterTopologyReconciledCondition
	switch {
	case err != nil:
		conditions.Set(s.cluster, conditions.False(t, clusterv1.ClusterTopologyReconciledFailedReason,
			strings.ReplaceAll(err.Error(), "\n", "; ")+": fix the ClusterClass, its templates or the topology; the topology controller retries"))
	case s.blocked != nil:
		conditions.Set(s.cluster, conditions.False(t, s.blocked.reason, s.blocked.message))
	case s.applied && s.upgrade != nil && s.upgrade.Reason != "":
		conditions.Set(s.cluster, conditions.False(t, s.upgrade.Reason, s.upgrade.Message()))
	case s.applied:
		conditions.Set(s.cluster, conditions.True(t, clusterv1.ClusterTopologyReconciledSucceededReason, ""))
	}
}
