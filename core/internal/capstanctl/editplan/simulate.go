package editplan

import (
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/mdrollout"
)

// simMachine is a Machine of the simulation; a new one has no name yet.
type simMachine struct {
	name      string
	available bool
}

// simSet is a MachineSet of the simulation: spec.replicas and its Machines that are not being
// deleted, in the order it deletes them.
type simSet struct {
	replicas int32
	machines []simMachine
}

// newSimSet is ms as the simulation starts from: its live Machines sorted in the deletion order
// the MachineDeployment sets on all its MachineSets.
func newSimSet(ms *clusterv1.MachineSet, machines []*clusterv1.Machine, order clusterv1.MachineSetDeletionOrder) *simSet {
	var live []*clusterv1.Machine
	for _, m := range machines {
		if m.DeletionTimestamp.IsZero() {
			live = append(live, m)
		}
	}
	// Admission refuses an unknown order; the list is then left in name order, as the controller leaves it.
	_ = machineset.SortForDeletion(live, order)
	s := &simSet{replicas: machineset.DesiredReplicas(ms.Spec.Replicas, ms.Annotations)}
	for _, m := range live {
		s.machines = append(s.machines, simMachine{name: m.Name, available: conditions.IsTrue(m, clusterv1.MachineAvailableCondition)})
	}
	return s
}

func (s *simSet) state() mdrollout.MachineSetState {
	st := mdrollout.MachineSetState{Replicas: s.replicas}
	for _, m := range s.machines {
		st.Available = append(st.Available, m.available)
	}
	return st
}

// scaleTo makes the MachineSet act on spec.replicas = replicas at once: new Machines (not yet
// available, so first in its deletion order) or the deletion of its first ones. An old
// MachineSet (create false) never creates.
func (s *simSet) scaleTo(replicas int32, create bool) (created int, deleted []string) {
	s.replicas = replicas
	for create && int32(len(s.machines)) < replicas {
		s.machines = append([]simMachine{{}}, s.machines...)
		created++
	}
	for int32(len(s.machines)) > replicas {
		deleted = append(deleted, nameOf(s.machines[0]))
		s.machines = s.machines[1:]
	}
	return created, deleted
}

// becomeAvailable marks every Machine available and reports whether one was not.
func (s *simSet) becomeAvailable() bool {
	changed := false
	for i := range s.machines {
		changed = changed || !s.machines[i].available
		s.machines[i].available = true
	}
	return changed
}

// newMachineName stands for a Machine the simulation creates: it has no name yet.
const newMachineName = "(a new Machine)"

func nameOf(m simMachine) string {
	if m.name == "" {
		return newMachineName
	}
	return m.name
}

// rollout is the outcome of a simulated rollout or scaling.
type rollout struct {
	steps             []Step
	replaced, removed []string
	created           int
	// stuck: the strategy stops with old Machines left (e.g. not enough are available).
	stuck bool
}

// simulateRollingUpdate runs the controller's planner (mdrollout.PlanRollingUpdate) until the
// rollout is complete, letting each MachineSet act on its spec.replicas at once and the new
// Machines become available when nothing else can happen: a step is what happens between two
// such waits.
func simulateRollingUpdate(desired, maxSurge, maxUnavailable int32, target *simSet, old []*simSet) rollout {
	var out rollout
	var step Step
	total := func() int32 {
		n := int32(len(target.machines))
		for _, o := range old {
			n += int32(len(o.machines))
		}
		return n
	}
	for range 4*(desired+total()) + 8 {
		states := make([]mdrollout.MachineSetState, len(old))
		for i, o := range old {
			states[i] = o.state()
		}
		newReplicas, oldReplicas := mdrollout.PlanRollingUpdate(desired, maxSurge, maxUnavailable, target.state(), states)
		created, removed := target.scaleTo(newReplicas, true)
		var replaced []string
		for i, o := range old {
			_, d := o.scaleTo(min(oldReplicas[i], int32(len(o.machines))), false)
			replaced = append(replaced, d...)
		}
		if created == 0 && len(removed)+len(replaced) == 0 {
			if len(step.Delete) > 0 || step.Create > 0 {
				out.steps = append(out.steps, step)
				step = Step{}
			}
			if !target.becomeAvailable() {
				break
			}
			continue
		}
		step.Create += created
		step.Surge += int(min(int32(created), max(0, total()-desired)))
		step.Delete = append(step.Delete, append(removed, replaced...)...)
		out.created += created
		out.removed = append(out.removed, removed...)
		out.replaced = append(out.replaced, replaced...)
	}
	for _, o := range old {
		out.stuck = out.stuck || len(o.machines) > 0
	}
	return out
}

// scaleOnce applies one plan of the planners that do not roll out (OnDelete, paused): the
// target MachineSet gets newReplicas, the old ones shrink to theirs; nothing is replaced.
func scaleOnce(newReplicas int32, oldReplicas []int32, target *simSet, old []*simSet) rollout {
	var out rollout
	out.created, out.removed = target.scaleTo(newReplicas, true)
	for i, o := range old {
		_, d := o.scaleTo(min(oldReplicas[i], int32(len(o.machines))), false)
		out.removed = append(out.removed, d...)
	}
	if out.created > 0 || len(out.removed) > 0 {
		out.steps = []Step{{Create: out.created, Delete: out.removed}}
	}
	return out
}

// oldMachines are the live Machines of the old MachineSets, oldest MachineSet first, each in its
// deletion order.
func oldMachines(old []*simSet) []string {
	var out []string
	for _, o := range old {
		for _, m := range o.machines {
			out = append(out, nameOf(m))
		}
	}
	return out
}
