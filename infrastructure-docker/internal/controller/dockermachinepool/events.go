package dockermachinepool

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"capstan.dev/contracts/events"
)

// The reasons of the Events on a DockerMachinePool (or DevMachinePool): the core's MachineSet
// reasons, for instances instead of Machines. Upstream's Docker provider records no Event.
//
// The instances a reconcile creates or removes for one cause are one Event naming them all, its
// action the cause (ScaleUp, ScaleDown, Rollout, Delete): events.k8s.io folds Events of one
// reason and action on one object into a series (for six minutes) keeping the first note only,
// and an instance is no object an Event could name as related.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

// Why instances are removed, as the removal Events say.
const (
	whyScaleDown = "scale down"
	whyOutdated  = "outdated: replaced by the rollout"
	whyDeleting  = "the DockerMachinePool is being deleted"
)

// actions are the Events' actions by why.
var actions = map[string]string{whyScaleDown: "ScaleDown", whyOutdated: "Rollout", whyDeleting: "Delete"}

// creations are the instances one reconcile created, from image; replacing says they replace
// outdated instances (a rollout step).
type creations struct {
	image     string
	replacing bool
	names     []string
}

// recordCreations records the instances created, once: they exist from then on.
func (r *Reconciler) recordCreations(s *scope, c *creations) {
	if len(c.names) == 0 {
		return
	}
	if c.replacing {
		r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulCreate, "Rollout",
			"Created %s (image %s) to replace outdated instances", instances(c.names), c.image)
		return
	}
	r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulCreate, "ScaleUp",
		"Created %s (image %s; %d replicas desired)", instances(c.names), c.image, s.desired)
}

// recordCreateFailed records a failure to create an instance when no condition of the pool
// already reports it: a retry of the same failure is not recorded again.
func (r *Reconciler) recordCreateFailed(s *scope, name, message string) {
	for _, c := range s.pool.Status.Conditions {
		if c.Status != metav1.ConditionTrue && strings.Contains(c.Message, message) {
			return
		}
	}
	r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedCreate, "ScaleUp",
		"Failed to create instance %s: %s", name, message)
}

// removals are the instances one reconcile removed, by cause.
type removals struct{ excess, outdated, deleting []string }

func (*removals) why(victim *instance) string {
	if victim.outdated {
		return whyOutdated
	}
	return whyScaleDown
}

func (rm *removals) add(victim *instance) {
	if victim.outdated {
		rm.outdated = append(rm.outdated, victim.container.Name)
		return
	}
	rm.excess = append(rm.excess, victim.container.Name)
}

// recordRemovals records the instances removed with their volumes, once per cause.
func (r *Reconciler) recordRemovals(s *scope, rm *removals) {
	for _, g := range []struct {
		names     []string
		why, note string
	}{{rm.outdated, whyOutdated, whyOutdated}, {rm.excess, whyScaleDown, fmt.Sprintf("%s, %d desired", whyScaleDown, s.desired)}, {rm.deleting, whyDeleting, whyDeleting}} {
		if len(g.names) == 0 {
			continue
		}
		volumes := "its volumes"
		if len(g.names) > 1 {
			volumes = "their volumes"
		}
		r.Recorder.Eventf(s.regarding, nil, events.Normal, ReasonSuccessfulDelete, actions[g.why],
			"Removed %s and %s (%s)", instances(g.names), volumes, g.note)
	}
}

// recordDeleteFailed records a failure to remove an instance (each attempt: the next reconcile
// tries again).
func (r *Reconciler) recordDeleteFailed(s *scope, name, why string, err error) {
	r.Recorder.Eventf(s.regarding, nil, events.Warning, ReasonFailedDelete, actions[why],
		"Failed to remove instance %s (%s; retrying; `docker rm -f -v %s` removes it by hand): %v", name, why, name, err)
}

// instances names one instance or several: "instance a", "instances a, b".
func instances(names []string) string {
	if len(names) == 1 {
		return "instance " + names[0]
	}
	return "instances " + strings.Join(names, ", ")
}
