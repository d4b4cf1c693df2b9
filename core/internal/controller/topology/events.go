package topology

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController.
const ControllerName = "topology-controller"

// ReasonHookBlocking, on the Cluster: a Runtime SDK hook holds the topology (its answer asked to
// retry later). Upstream records no Event for it; the TopologyReconciled condition says the same
// for as long as it lasts.
const ReasonHookBlocking = "HookBlocking"

// recordHookBlocking records that hook holds c, once per hold: not when the Cluster's
// TopologyReconciled condition (the last reconcile's) already says the same hooks hold it (its
// message starts with message: an upgrade's goes on with what the upgrade waits for).
func (r *Reconciler) recordHookBlocking(c *clusterv1.Cluster, reason, message string) {
	if cur := conditions.Get(c, clusterv1.ClusterTopologyReconciledCondition); cur != nil &&
		cur.Status == metav1.ConditionFalse && cur.Reason == reason && strings.HasPrefix(cur.Message, message) {
		return
	}
	r.Recorder.Eventf(c, nil, events.Normal, ReasonHookBlocking, "CallHook", "%s", message)
}
