package dockermachine

import (
	"strings"

	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node"
)

// The reasons of the Events on a DockerMachine (or DevMachine). Upstream's Docker provider
// records no Event: these follow the core's (SuccessfulCreate, FailedCreate, ...) and its drain
// Events (SuccessfulDrainNode, FailedDrainNode, TimedOutDrainNode) for the bootstrap.
const (
	ReasonSuccessfulCreate    = "SuccessfulCreate"
	ReasonFailedCreate        = "FailedCreate"
	ReasonSuccessfulBootstrap = "SuccessfulBootstrap"
	ReasonFailedBootstrap     = "FailedBootstrap"
	ReasonTimedOutBootstrap   = "TimedOutBootstrap"
	ReasonSuccessfulDelete    = "SuccessfulDelete"
	ReasonFailedDelete        = "FailedDelete"
)

// recordCreate records the creation of the node container, once: it exists from then on.
func (r *Reconciler) recordCreate(s *scope, image string, role docker.Role) {
	why := ""
	if s.recreate {
		why = "; the earlier one was created but never started (its creation was cut off) and was removed"
	}
	r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulCreate, "CreateContainer",
		"Created node container %s (image %s, role %s)%s", s.containerName, image, role, why)
}

// recordCreateFailed records a failure to create the node container when the ContainerProvisioned
// condition does not already say it: a retry of the same failure is not recorded again.
func (r *Reconciler) recordCreateFailed(s *scope, reason, message string) {
	if saidBefore(s, infrav1.DockerMachineContainerProvisionedCondition, reason, message) {
		return
	}
	r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedCreate, "CreateContainer",
		"Failed to create node container %s: %s", s.containerName, message)
}

// recordBootstrap records the end of the bootstrap: its success, or its failure or timeout
// when the BootstrapExecSucceeded condition does not already say so (a bootstrap that ended is
// looked at again by every reconcile until the Machine is replaced).
func (r *Reconciler) recordBootstrap(s *scope, st node.BootstrapStatus) {
	switch st.Phase {
	case node.BootstrapSucceeded:
		r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulBootstrap, "Bootstrap",
			"The bootstrap data ran successfully in node container %s", s.containerName)
	case node.BootstrapFailed, node.BootstrapTimedOut:
		reason, cond := ReasonFailedBootstrap, infrav1.DockerMachineBootstrapFailedReason
		if st.Phase == node.BootstrapTimedOut {
			reason, cond = ReasonTimedOutBootstrap, infrav1.DockerMachineBootstrapTimedOutReason
		}
		if saidBefore(s, infrav1.DockerMachineBootstrapExecSucceededCondition, cond, st.Message) {
			return
		}
		// The recorder cuts a long output to the API's limit; the condition keeps it all.
		r.Recorder.Eventf(s.regarding, nil, events.Warning, reason, "Bootstrap", "%s", st.Message)
	}
}

// recordDelete records the removal of the node container, or a failure to remove it (each
// attempt: the finalizer stays until one succeeds).
func (r *Reconciler) recordDelete(s *scope, err error) {
	if err != nil {
		r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedDelete, "DeleteContainer",
			"Failed to remove node container %s (retrying; `docker rm -f -v %s` removes it by hand): %v", s.containerName, s.containerName, err)
		return
	}
	r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulDelete, "DeleteContainer",
		"Removed node container %s and its volumes", s.containerName)
}

// saidBefore reports whether the object's condition, as this reconcile read it, already has
// reason and message.
func saidBefore(s *scope, condType, reason, message string) bool {
	c := conditions.Get(s.dockerMachine, condType)
	return c != nil && c.Reason == reason && strings.Contains(c.Message, message)
}
