package predicates

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// IsPaused reports whether reconciling obj must stop: its Cluster has spec.paused
// or the paused annotation, or obj itself is annotated as paused.
func IsPaused(cluster *clusterv1.Cluster, obj client.Object) bool {
	return (cluster != nil && isPaused(cluster)) || HasPausedAnnotation(obj)
}

// SetPausedCondition records on obj whether it is paused and returns that, so a
// reconciler reports the pause (a condition) before it stops working.
func SetPausedCondition(obj interface {
	client.Object
	conditions.Setter
}, cluster *clusterv1.Cluster) bool {
	if !IsPaused(cluster, obj) {
		conditions.Set(obj, conditions.False(clusterv1.PausedCondition, clusterv1.NotPausedReason, ""))
		return false
	}
	var msg string
	switch {
	case cluster != nil && cluster.Spec.Paused != nil && *cluster.Spec.Paused:
		msg = "Cluster spec.paused is true: set it to false to resume reconciliation"
	case cluster != nil && HasPausedAnnotation(cluster):
		msg = "Cluster has the " + clusterv1.PausedAnnotation + " annotation: remove it to resume reconciliation"
	default:
		msg = "the object has the " + clusterv1.PausedAnnotation + " annotation: remove it to resume reconciliation"
	}
	conditions.Set(obj, metav1.Condition{Type: clusterv1.PausedCondition, Status: metav1.ConditionTrue,
		Reason: clusterv1.PausedReason, Message: msg})
	return true
}
