package machine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "machine-controller"

// The reasons of the drain Events on a Machine. SuccessfulDrainNode and FailedDrainNode are
// upstream's; upstream records neither the start nor the timeout, named here alike.
const (
	ReasonStartedDrainNode    = "StartedDrainNode"
	ReasonSuccessfulDrainNode = "SuccessfulDrainNode"
	ReasonFailedDrainNode     = "FailedDrainNode"
	ReasonTimedOutDrainNode   = "TimedOutDrainNode"
)

const actionDrain = "Drain"

// drainFinishing reports whether the drain ends with this pass rather than ended in an earlier
// one: the drain is run again on each pass that waits for volumes to detach, and the end of a
// drain is recorded once, on the pass whose Deleting condition (the previous pass's) does not
// yet name the volume wait.
func drainFinishing(m *clusterv1.Machine) bool {
	c := conditions.Get(m, clusterv1.MachineDeletingCondition)
	return c == nil || c.Status != metav1.ConditionTrue || c.Reason != clusterv1.MachineDeletingWaitingForVolumeDetachReason
}

// recordDrain records one drain Event on the Machine; the recorder aggregates repeats of a
// failure into one series and limits each Machine's Events.
func (r *Reconciler) recordDrain(m *clusterv1.Machine, reason, note string, args ...any) {
	typ := events.Normal
	if reason == ReasonFailedDrainNode || reason == ReasonTimedOutDrainNode {
		typ = events.Warning
	}
	r.Recorder.Eventf(m, nil, typ, reason, actionDrain, note, args...)
}
