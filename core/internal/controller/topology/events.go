package topology

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController.
const ControllerName = "topology-controller"

// The reasons of the Events for the objects the topology writes, upstream's: recorded on the
// Cluster, the object named as the related one, when the object is created, changed or deleted
// (never for a reconcile that changes nothing, so a steady Cluster records none).
const (
	ReasonTopologyCreate = "TopologyCreate"
	ReasonTopologyUpdate = "TopologyUpdate"
	ReasonTopologyDelete = "TopologyDelete"
)

// recordWrite records the creation (or, when update, the change) of obj on c, or its failure.
func (r *Reconciler) recordWrite(c *clusterv1.Cluster, obj client.Object, update bool, err error) {
	reason, action, verb := ReasonTopologyCreate, "Create", "Created"
	if update {
		reason, action, verb = ReasonTopologyUpdate, "Update", "Updated"
	}
	r.recordChange(c, obj, reason, action, verb, err)
}

// recordDelete records the deletion of obj, which c's topology no longer has, or its failure.
func (r *Reconciler) recordDelete(c *clusterv1.Cluster, obj client.Object, err error) {
	r.recordChange(c, obj, ReasonTopologyDelete, "Delete", "Deleted", err)
}

func (r *Reconciler) recordChange(c *clusterv1.Cluster, obj client.Object, reason, action, verb string, err error) {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if err != nil {
		// A conflict is the stale cache's: the next reconcile tries again; not a failure to report.
		if !apierrors.IsConflict(err) {
			r.Recorder.Eventf(c, obj, events.Warning, reason, action, "Failed to %s %s %s: %v", strings.ToLower(action), kind, obj.GetName(), err)
		}
		return
	}
	r.Recorder.Eventf(c, obj, events.Normal, reason, action, "%s %s %s", verb, kind, obj.GetName())
}

// ReasonHookBlocking, on the Cluster: a Runtime SDK hook holds the topology (its answer asked to
// retry later). Upstream records no Event for it; the TopologyReconciled condition says the same
// for as long as it lasts.
const ReasonHookBlocking = "HookBlocking"

// recordHookBlocking records that a hook holds the scope's Cluster, once per hold: not when the
// Cluster's TopologyReconciled condition (the last reconcile's) already says the same hooks hold
// it (its message starts with message: an upgrade's goes on with what the upgrade waits for), nor
// when this process recorded the same hold and no reconcile since found the Cluster unheld: the
// cache may not show the condition the recording reconcile wrote yet (a busy API server, another
// controller's write in between, a hook asking again within a second).
func (r *Reconciler) recordHookBlocking(s *scope, reason, message string) {
	s.hookHeld = true
	c, hold := s.cluster, reason+"\n"+message
	key := client.ObjectKeyFromObject(c)
	last, recorded := r.recordedHolds.Swap(key, hold)
	if cur := conditions.Get(c, clusterv1.ClusterTopologyReconciledCondition); cur != nil &&
		cur.Status == metav1.ConditionFalse && cur.Reason == reason && strings.HasPrefix(cur.Message, message) {
		return
	}
	if recorded && last == hold {
		return
	}
	r.Recorder.Eventf(c, nil, events.Normal, ReasonHookBlocking, "CallHook", "%s", message)
}

// endHold forgets the hold recorded for the scope's Cluster when this reconcile found no hook
// holding it: a hold that comes again is recorded again.
func (r *Reconciler) endHold(s *scope) {
	if !s.hookHeld {
		r.recordedHolds.Delete(client.ObjectKeyFromObject(s.cluster))
	}
}
