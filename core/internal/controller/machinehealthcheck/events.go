package machinehealthcheck

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "machinehealthcheck-controller"

// The reasons of the MachineHealthCheck's Events: upstream's.
const (
	// ReasonMachineMarkedUnhealthy, on the Machine: remediation was asked for (of its owner,
	// or of the external remediation controller).
	ReasonMachineMarkedUnhealthy = "MachineMarkedUnhealthy"
	// ReasonRemediationRestricted, on the MachineHealthCheck: unhealthy Machines are left
	// alone because remediation.triggerIf does not allow remediating them.
	ReasonRemediationRestricted = "RemediationRestricted"
)

const actionRemediate = "Remediate"

// recordMarkedUnhealthy records that m was marked for remediation. Called after the write
// that marks it, which happens once per unhealthy spell: later reconciles find the mark.
func (r *Reconciler) recordMarkedUnhealthy(mhc *clusterv1.MachineHealthCheck, t *target) {
	r.Recorder.Eventf(t.machine, mhc, events.Normal, ReasonMachineMarkedUnhealthy, actionRemediate,
		"Machine %s has been marked as unhealthy by %s: %s", t.machine.Name, mhc.Name, t.condition.Message)
}

// recordRestricted records that remediation is refused while Machines are unhealthy, once:
// when the MachineHealthCheck's RemediationAllowed condition (still the last reconcile's)
// did not already say so.
func (r *Reconciler) recordRestricted(s *scope, unhealthy int) {
	if s.remediation.allowed || unhealthy == 0 {
		return
	}
	if c := conditions.Get(s.mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition); c != nil &&
		c.Status == metav1.ConditionFalse && c.Reason == s.remediation.reason {
		return
	}
	r.Recorder.Eventf(s.mhc, nil, events.Warning, ReasonRemediationRestricted, actionRemediate, "%s", s.remediation.message)
}
