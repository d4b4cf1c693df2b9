package clusterclass

import (
	"fmt"
	"strings"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes the conditions from what the reconcile found. While paused only the Paused
// condition is written (the patch helper keeps the rest as it was); a class whose deletion is no
// longer held keeps its status; one still in use reports the Clusters that hold it in Deleting.
func setStatus(s *scope, reconcileErr error) {
	cc := s.class
	if s.paused || s.deleting {
		return
	}
	switch {
	case len(s.refProblems) > 0:
		conditions.Set(cc, conditions.Unknown(clusterv1.ClusterClassRefVersionsUpToDateCondition,
			clusterv1.ClusterClassRefVersionsUpToDateInternalErrorReason, strings.Join(s.refProblems, "; ")))
	case reconcileErr != nil:
		conditions.Set(cc, conditions.Unknown(clusterv1.ClusterClassRefVersionsUpToDateCondition,
			clusterv1.ClusterClassRefVersionsUpToDateInternalErrorReason, "Checking the templates failed: "+reconcileErr.Error()))
	case len(s.outdated) > 0:
		conditions.Set(cc, conditions.False(clusterv1.ClusterClassRefVersionsUpToDateCondition,
			clusterv1.ClusterClassRefVersionsNotUpToDateReason, strings.Join(s.outdated, "; ")))
	default:
		conditions.Set(cc, conditions.True(clusterv1.ClusterClassRefVersionsUpToDateCondition,
			clusterv1.ClusterClassRefVersionsUpToDateReason, ""))
	}
	if len(s.variableProblems) > 0 {
		conditions.Set(cc, conditions.False(clusterv1.ClusterClassVariablesReadyCondition,
			clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, strings.Join(s.variableProblems, "; ")))
	} else {
		conditions.Set(cc, conditions.True(clusterv1.ClusterClassVariablesReadyCondition,
			clusterv1.ClusterClassVariablesReadyReason, ""))
	}
	if len(s.usedBy) > 0 {
		conditions.Set(cc, conditions.True(clusterv1.ClusterClassDeletingCondition, clusterv1.ClusterClassDeletingWaitingForClustersReason,
			"Waiting for the Clusters using this ClusterClass to be deleted or to use another class (spec.topology.classRef): "+namesMessage(s.usedBy)))
	}
	if reconcileErr == nil {
		cc.Status.ObservedGeneration = cc.Generation
	}
}

// namesMessage lists names, at most ten of them, and how many more there are.
func namesMessage(names []string) string {
	const shown = 10
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}
