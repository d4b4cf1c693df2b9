package machinedeployment

import (
	"fmt"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "machinedeployment-controller"

// The reasons of the Events on a MachineDeployment: upstream's.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulScale  = "SuccessfulScale"
	ReasonFailedScale      = "FailedScale"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

// recordCreate records the creation of a MachineSet (never of one found existing, so a restart
// records nothing again).
func (r *Reconciler) recordCreate(md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet, err error) {
	if err != nil {
		r.Recorder.Eventf(md, ms, events.Warning, ReasonFailedCreate, "Create", "Failed to create MachineSet %s: %v", ms.Name, err)
		return
	}
	r.Recorder.Eventf(md, ms, events.Normal, ReasonSuccessfulCreate, "Create", "Created MachineSet %s with %d replicas",
		ms.Name, derefReplicas(ms.Spec.Replicas))
}

// recordScale records a change of a MachineSet's spec.replicas, upstream's "from -> to".
func (r *Reconciler) recordScale(md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet, from, to int32, err error) {
	if err != nil {
		r.Recorder.Eventf(md, ms, events.Warning, ReasonFailedScale, "Scale", "Failed to scale MachineSet %s: %v", ms.Name, err)
		return
	}
	r.Recorder.Eventf(md, ms, events.Normal, ReasonSuccessfulScale, "Scale", "Scaled MachineSet %s: %d -> %d", ms.Name, from, to)
}

// recordDelete records the deletion of an old MachineSet once the rollout no longer needs it.
func (r *Reconciler) recordDelete(md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet, err error) {
	if err != nil {
		r.Recorder.Eventf(md, ms, events.Warning, ReasonFailedDelete, "Delete", "Failed to delete MachineSet %s: %v", ms.Name, err)
		return
	}
	r.Recorder.Eventf(md, ms, events.Normal, ReasonSuccessfulDelete, "Delete", "Deleted MachineSet %s: %s", ms.Name,
		fmt.Sprintf("the rollout to revision %s is complete", md.Annotations[clusterv1.RevisionAnnotation]))
}

func derefReplicas(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
