package dockermachine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// setStatus computes the conditions in one place, deterministically, so that a steady
// DockerMachine is never re-written. A reconcile that did not reach a step (paused, deleting,
// waiting earlier) keeps that step's last condition, or reports it as waiting when it has none.
func setStatus(s *scope) {
	if s.paused {
		return
	}
	dm := s.dockerMachine
	conditions.Set(dm, deletingCondition(s))
	if s.reconciled {
		conditions.Set(dm, containerCondition(s))
		if c, ok := bootstrapCondition(s); ok {
			conditions.Set(dm, c)
		}
	}
	if s.reconciled || conditions.Get(dm, infrav1.DockerMachineReadyCondition) == nil {
		conditions.Set(dm, readyCondition(s))
	}
}

func containerCondition(s *scope) metav1.Condition {
	t := infrav1.DockerMachineContainerProvisionedCondition
	if s.provision != nil {
		return conditions.False(t, s.provision.reason, s.provision.message)
	}
	return conditions.True(t, infrav1.DockerMachineContainerProvisionedReason, "")
}

func bootstrapCondition(s *scope) (metav1.Condition, bool) {
	t := infrav1.DockerMachineBootstrapExecSucceededCondition
	switch {
	case s.bootstrapped:
		return conditions.True(t, infrav1.DockerMachineBootstrapExecSucceededReason, ""), true
	case s.bootstrap != nil:
		return conditions.False(t, s.bootstrap.reason, s.bootstrap.message), true
	case conditions.Get(s.dockerMachine, t) != nil:
		return metav1.Condition{}, false // not looked at: keep it
	}
	return conditions.False(t, infrav1.DockerMachineBootstrapWaitingForContainerReason, "Waiting for the node container to run"), true
}

func deletingCondition(s *scope) metav1.Condition {
	t := infrav1.DockerMachineDeletingCondition
	if s.dockerMachine.DeletionTimestamp.IsZero() {
		return conditions.False(t, infrav1.DockerMachineNotDeletingReason, "")
	}
	if s.deleting == nil {
		if c := conditions.Get(s.dockerMachine, t); c != nil && c.Status == metav1.ConditionTrue {
			return *c // paused while deleting: keep what was reported
		}
		return conditions.True(t, infrav1.DockerMachineDeletingReason, "Deletion started")
	}
	return conditions.True(t, s.deleting.reason, s.deleting.message)
}

// readyCondition summarises: ready when the container runs, is bootstrapped and its Node
// carries the providerID. The message of the first thing missing is the one users read on the
// Machine (InfrastructureReady).
func readyCondition(s *scope) metav1.Condition {
	t := infrav1.DockerMachineReadyCondition
	dm := s.dockerMachine
	notReady := func(msg string) metav1.Condition {
		return conditions.False(t, infrav1.DockerMachineNotReadyReason, msg)
	}
	if !dm.DeletionTimestamp.IsZero() {
		return notReady("DockerMachine is being deleted")
	}
	for _, ct := range []string{infrav1.DockerMachineContainerProvisionedCondition, infrav1.DockerMachineBootstrapExecSucceededCondition} {
		c := conditions.Get(dm, ct)
		switch {
		case c == nil:
			return notReady(ct + " not reported yet")
		case c.Status != metav1.ConditionTrue && c.Message != "":
			return notReady(c.Message)
		case c.Status != metav1.ConditionTrue:
			return notReady(ct + " is " + string(c.Status))
		}
	}
	if s.node != nil {
		return notReady(s.node.message)
	}
	if !s.reconciled {
		if c := conditions.Get(dm, t); c != nil {
			return *c
		}
	}
	return conditions.True(t, infrav1.DockerMachineReadyReason, "")
}
