package clusterresourceset

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/conditions"
)

// reasonOrder ranks the reasons of ResourcesApplied=False: the condition carries the first one
// found in this order (what the user must fix before what is merely pending), and its message
// lists every problem.
var reasonOrder = []string{
	addonsv1.ClusterResourceSetResourcesAppliedWrongSecretTypeReason,
	addonsv1.ClusterResourceSetResourceNotFoundReason,
	addonsv1.ClusterResourceSetResourcesAppliedInternalErrorReason,
	addonsv1.ClusterResourceSetResourcesNotAppliedReason,
}

// maxProblemsShown bounds the problems a message lists.
const maxProblemsShown = 5

// setStatus writes what the reconcile found. It is deterministic, so a reconcile that finds the
// same again writes nothing. A reconcile that did not look (paused, deleting) or lost a write
// race leaves ResourcesApplied as it was.
func setStatus(s *scope) {
	if !s.evaluated || s.conflicted {
		return
	}
	s.crs.Status.ObservedGeneration = s.crs.Generation
	conditions.Set(s.crs, resourcesAppliedCondition(s))
}

func resourcesAppliedCondition(s *scope) metav1.Condition {
	t := addonsv1.ClusterResourceSetResourcesAppliedCondition
	if len(s.problems) == 0 {
		msg := ""
		if len(s.pausedClusters) > 0 {
			msg = "Not applied to paused Clusters (applied once they are resumed): " + strings.Join(s.pausedClusters, ", ")
		}
		return conditions.True(t, addonsv1.ClusterResourceSetResourcesAppliedReason, msg)
	}
	reason := reasonOrder[len(reasonOrder)-1]
	for _, candidate := range reasonOrder {
		if slices.ContainsFunc(s.problems, func(p problem) bool { return p.reason == candidate }) {
			reason = candidate
			break
		}
	}
	var msgs []string
	for i, p := range s.problems {
		if i == maxProblemsShown {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(s.problems)-maxProblemsShown))
			break
		}
		msgs = append(msgs, p.message)
	}
	return conditions.False(t, reason, strings.Join(msgs, "; "))
}
