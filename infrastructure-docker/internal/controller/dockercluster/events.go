package dockercluster

import (
	"strings"

	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// The reasons of the Events on a DockerCluster (or DevCluster). Upstream's Docker provider
// records no Event: these follow the core's (SuccessfulCreate, FailedCreate, ...), with
// SuccessfulReload and FailedReload for a new load balancer configuration.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulReload = "SuccessfulReload"
	ReasonFailedReload     = "FailedReload"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

// recordCreate records the creation of the load balancer container (why says why it was
// created again, or is empty), or a failure to create it that the LoadBalancerAvailable
// condition does not already report: a retry of the same failure is not recorded again.
func (r *Reconciler) recordCreate(s *scope, name, image, why string, err error) {
	if err != nil {
		if s.lbProblem != nil && saidBefore(s, s.lbProblem.message) || s.lbProblem == nil && saidBefore(s, err.Error()) {
			return
		}
		msg := err.Error()
		if s.lbProblem != nil {
			msg = s.lbProblem.message
		}
		r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedCreate, "CreateLoadBalancer",
			"Failed to create load balancer container %s: %s", name, msg)
		return
	}
	r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulCreate, "CreateLoadBalancer",
		"Created load balancer container %s (image %s)%s", name, image, why)
}

// recordReload records a new configuration of a running load balancer (the control-plane nodes
// behind it changed), or a failure to apply it that the condition does not already report.
func (r *Reconciler) recordReload(s *scope, err error) {
	if err != nil {
		if saidBefore(s, err.Error()) {
			return
		}
		r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedReload, "ReloadLoadBalancer",
			"Failed to reconfigure load balancer %s for control-plane nodes [%s] (retrying; `docker logs %s` shows HAProxy's side): %v",
			s.lb.Name, backendNames(s.backends), s.lb.Name, err)
		return
	}
	if s.lbCreated {
		return // the first configuration of a new load balancer: part of its creation
	}
	r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulReload, "ReloadLoadBalancer",
		"Reloaded load balancer %s with %d control-plane nodes [%s]", s.lb.Name, len(s.backends), backendNames(s.backends))
}

// recordDelete records the removal of the load balancer container, or a failure to remove it
// (each attempt: the finalizer stays until one succeeds).
func (r *Reconciler) recordDelete(s *scope, name string, err error) {
	if err != nil {
		r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedDelete, "DeleteLoadBalancer",
			"Failed to remove load balancer container %s (retrying; `docker rm -f %s` removes it by hand): %v", name, name, err)
		return
	}
	r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulDelete, "DeleteLoadBalancer",
		"Removed load balancer container %s", name)
}

// saidBefore reports whether the LoadBalancerAvailable condition, as this reconcile read it,
// already reports message.
func saidBefore(s *scope, message string) bool {
	c := conditions.Get(s.dockerCluster, infrav1.DockerClusterLoadBalancerAvailableCondition)
	return c != nil && c.Status != "True" && strings.Contains(c.Message, message)
}
