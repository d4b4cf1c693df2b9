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

// recordHookBlocking records that hook holds c, once per hold: not when the Cluster's
// TopologyReconciled condition (the last reconcile's) already says the same hooks hold it (its
// message starts with message: an upgrade's goes on with what the upgrade waits for), nor when
// this process recorded the same hold reading the same version of the Cluster: the cache does
// not show the condition that reconcile wrote yet (a busy API server, a hook asking again
// within a second).
func (r *Reconciler) recordHookBlocking(c *clusterv1.Cluster, reason, message string) {
	if cur := conditions.Get(c, clusterv1.ClusterTopologyReconciledCondition); cur != nil &&
		cur.Status == metav1.ConditionFalse && cur.Reason == reason && strings.HasPrefix(cur.Message, message) {
		return
	}
	seen := recordedHold{hold: reason + "\n" + message, resourceVersion: c.ResourceVersion}
	if last, ok := r.recordedHolds.Load(client.ObjectKeyFromObject(c)); ok && last == seen {
		return
	}
	r.recordedHolds.Store(client.ObjectKeyFromObject(c), seen)
	r.Recorder.Eventf(c, nil, events.Normal, ReasonHookBlocking, "CallHook", "%s", message)
}

// recordedHold is the hold whose Event this process last recorded for a Cluster, and the
// resourceVersion of the Cluster it read then.
type recordedHold struct{ hold, resourceVersion string }
