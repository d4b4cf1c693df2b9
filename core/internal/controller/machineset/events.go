package machineset

import (
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "machineset-controller"

// The reasons of the Events on a MachineSet: upstream's.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

// recordCreate records the outcome of creating a Machine: once per attempt, never for a
// Machine that already exists, so a steady MachineSet records nothing.
func (r *Reconciler) recordCreate(ms *clusterv1.MachineSet, m *clusterv1.Machine, err error) {
	if err != nil {
		r.Recorder.Eventf(ms, nil, events.Warning, ReasonFailedCreate, "Create", "Failed to create Machine: %v", err)
		return
	}
	r.Recorder.Eventf(ms, m, events.Normal, ReasonSuccessfulCreate, "Create", "Created Machine %s", m.Name)
}

// recordDelete records the outcome of deleting a Machine, why says what for ("scale down",
// "remediation", "MachineSet deletion"). Machines already deleting are never deleted again,
// so each Machine has one such Event.
func (r *Reconciler) recordDelete(ms *clusterv1.MachineSet, m *clusterv1.Machine, why string, err error) {
	if err != nil {
		r.Recorder.Eventf(ms, m, events.Warning, ReasonFailedDelete, "Delete", "Failed to delete Machine %s (%s): %v", m.Name, why, err)
		return
	}
	r.Recorder.Eventf(ms, m, events.Normal, ReasonSuccessfulDelete, "Delete", "Deleted Machine %s (%s)", m.Name, why)
}
