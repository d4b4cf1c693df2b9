package dockercluster

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// setStatus computes the conditions in one place, deterministically, so that a steady
// DockerCluster is never re-written. A reconcile that did not look at the load balancer (paused,
// deleting) keeps the last LoadBalancerAvailable condition.
func setStatus(s *scope) {
	if s.paused {
		return
	}
	dc := s.dockerCluster
	conditions.Set(dc, deletingCondition(s))
	if lb, ok := loadBalancerCondition(s); ok {
		conditions.Set(dc, lb)
	}
	conditions.Set(dc, readyCondition(dc))
}

func loadBalancerCondition(s *scope) (metav1.Condition, bool) {
	t := infrav1.DockerClusterLoadBalancerAvailableCondition
	switch {
	case s.waitingForCluster:
		return conditions.False(t, infrav1.DockerClusterWaitingForClusterReason,
			"Waiting for the Cluster controller to set an owner reference to the Cluster that uses this DockerCluster"), true
	case !s.reconciled:
		return metav1.Condition{}, false
	case s.lbProblem != nil:
		return conditions.False(t, s.lbProblem.reason, s.lbProblem.message), true
	case s.lb == nil:
		return conditions.False(t, infrav1.DockerClusterLoadBalancerNotAvailableReason, "The load balancer container is being created"), true
	}
	return conditions.True(t, infrav1.DockerClusterLoadBalancerAvailableReason, ""), true
}

func deletingCondition(s *scope) metav1.Condition {
	t := infrav1.DockerClusterDeletingCondition
	if s.dockerCluster.DeletionTimestamp.IsZero() {
		return conditions.False(t, infrav1.DockerClusterNotDeletingReason, "")
	}
	if s.deleting == nil {
		if c := conditions.Get(s.dockerCluster, t); c != nil && c.Status == metav1.ConditionTrue {
			return *c // paused while deleting: keep what was reported
		}
		return conditions.True(t, infrav1.DockerClusterDeletingReason, "Deletion started")
	}
	return conditions.True(t, s.deleting.reason, s.deleting.message)
}

// readyCondition summarises: ready when the load balancer is available and nothing is deleted.
func readyCondition(dc *infrav1.DockerCluster) metav1.Condition {
	t := infrav1.DockerClusterReadyCondition
	if !dc.DeletionTimestamp.IsZero() {
		return conditions.False(t, infrav1.DockerClusterNotReadyReason, "DockerCluster is being deleted")
	}
	lb := conditions.Get(dc, infrav1.DockerClusterLoadBalancerAvailableCondition)
	switch {
	case lb == nil:
		return conditions.False(t, infrav1.DockerClusterNotReadyReason, "LoadBalancerAvailable not reported yet")
	case lb.Status != metav1.ConditionTrue && lb.Message != "":
		return conditions.False(t, infrav1.DockerClusterNotReadyReason, lb.Message)
	case lb.Status != metav1.ConditionTrue:
		return conditions.False(t, infrav1.DockerClusterNotReadyReason, "LoadBalancerAvailable is "+string(lb.Status))
	}
	return conditions.True(t, infrav1.DockerClusterReadyReason, "")
}
