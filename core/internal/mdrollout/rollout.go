package mdrollout

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// MachineSetState is what the rollout planners know about one MachineSet.
type MachineSetState struct {
	// Replicas is spec.replicas.
	Replicas int32
	// Available says, for each of the MachineSet's Machines that is not being deleted and in the
	// order the MachineSet would delete them when scaling down, whether the Machine is available.
	Available []bool
}

// machines is the number of the MachineSet's Machines that are not being deleted.
func (s MachineSetState) machines() int32 { return int32(len(s.Available)) }

// size is how many Machines the MachineSet occupies: a MachineSet still creating Machines will
// have spec.replicas of them, one still deleting its surplus has them until they are deleted.
func (s MachineSetState) size() int32 { return max(s.Replicas, s.machines()) }

// availableAt is how many of its Machines are available once the MachineSet has acted on
// spec.replicas = replicas: its surplus Machines, taken in its deletion order, are gone.
func (s MachineSetState) availableAt(replicas int32) int32 {
	drop := max(0, s.machines()-replicas)
	var n int32
	for _, a := range s.Available[drop:] {
		if a {
			n++
		}
	}
	return n
}

// RollingUpdateLimits resolves maxSurge (rounded up) and maxUnavailable (rounded down) against
// the desired replicas, as upstream does. When both resolve to 0 (e.g. maxSurge 0 and
// maxUnavailable 10% of 3) maxUnavailable becomes 1, or the rollout could never make progress.
func RollingUpdateLimits(desired int32, ru clusterv1.MachineDeploymentRolloutStrategyRollingUpdate) (maxSurge, maxUnavailable int32, err error) {
	surge := intstr.FromInt32(1)
	if ru.MaxSurge != nil {
		surge = *ru.MaxSurge
	}
	unavailable := intstr.FromInt32(0)
	if ru.MaxUnavailable != nil {
		unavailable = *ru.MaxUnavailable
	}
	s, err := intstr.GetScaledValueFromIntOrPercent(&surge, int(desired), true)
	if err != nil {
		return 0, 0, fmt.Errorf("spec.rollout.strategy.rollingUpdate.maxSurge: %w", err)
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(&unavailable, int(desired), false)
	if err != nil {
		return 0, 0, fmt.Errorf("spec.rollout.strategy.rollingUpdate.maxUnavailable: %w", err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

// PlanRollingUpdate returns the spec.replicas of the new MachineSet and of the old ones (in the
// order given, oldest first) for the next step of a rolling update.
//
// The new MachineSet grows as long as all MachineSets together occupy fewer than
// desired+maxSurge Machines. Old MachineSets shrink, oldest first and one Machine at a time, as
// long as two things stay true once every MachineSet has acted on its spec.replicas:
//   - at least desired-maxUnavailable Machines are available, assuming each MachineSet deletes
//     its Machines in its own deletion order (so unavailable, unhealthy Machines go first and a
//     rollout is never stuck behind a broken old Machine);
//   - the old Machines left plus the available new ones are at least desired-maxUnavailable, so
//     old Machines that are still coming up are not all thrown away at once.
//
// A MachineSet's Machines that are not being deleted are what counts: an old MachineSet that was
// told to shrink but has not deleted its surplus yet still holds those Machines, and they are
// assumed gone only in the order it will delete them. This is what keeps the availability
// promise when the caches lag behind.
func PlanRollingUpdate(desired, maxSurge, maxUnavailable int32, newMS MachineSetState, old []MachineSetState) (int32, []int32) {
	newReplicas := newMS.Replicas
	oldReplicas := make([]int32, len(old))
	for i, o := range old {
		oldReplicas[i] = o.Replicas
	}

	if newReplicas > desired {
		newReplicas = desired
	} else {
		total := max(newMS.Replicas, newMS.machines())
		for _, o := range old {
			total += o.size()
		}
		if room := desired + maxSurge - total; room > 0 {
			newReplicas += min(room, desired-newReplicas)
		}
	}

	minAvailable := desired - maxUnavailable
	newAvailable := newMS.availableAt(newReplicas)
	available := newAvailable
	var oldLeft int32
	for i, o := range old {
		available += o.availableAt(oldReplicas[i])
		oldLeft += min(oldReplicas[i], o.machines())
	}
	for i, o := range old {
		for oldReplicas[i] > 0 {
			loss := o.availableAt(oldReplicas[i]) - o.availableAt(oldReplicas[i]-1)
			gone := min(oldReplicas[i], o.machines()) - min(oldReplicas[i]-1, o.machines())
			// Removing a Machine that is not available, or one that was never created, never
			// costs availability; only the capacity rule can hold it back.
			if (loss > 0 && available-loss < minAvailable) || (gone > 0 && oldLeft-gone+newAvailable < minAvailable) {
				break
			}
			oldReplicas[i]--
			available -= loss
			oldLeft -= gone
		}
	}
	return newReplicas, oldReplicas
}

// PlanOnDelete returns the spec.replicas of the new MachineSet and of the old ones for the
// OnDelete strategy: old MachineSets never replace a Machine (they are told not to create any) and
// shrink to the Machines users have not deleted yet; the new MachineSet gets the rest.
func PlanOnDelete(desired int32, old []MachineSetState) (int32, []int32) {
	oldReplicas := make([]int32, len(old))
	for i, o := range old {
		oldReplicas[i] = min(o.Replicas, o.machines())
	}
	return PlanScaleOnly(desired, oldReplicas)
}

// PlanScaleOnly returns the spec.replicas of the active MachineSet and the new spec.replicas of
// the others, given theirs: the active MachineSet gets what the others do not hold, and a scale
// down below what the others hold takes from them, oldest first.
func PlanScaleOnly(desired int32, others []int32) (int32, []int32) {
	out := make([]int32, len(others))
	var total int32
	for i, r := range others {
		out[i] = r
		total += r
	}
	for i := range out {
		if total <= desired {
			break
		}
		d := min(out[i], total-desired)
		out[i] -= d
		total -= d
	}
	return max(0, desired-total), out
}
