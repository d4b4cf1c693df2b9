package machinedeployment

import (
	"fmt"
	"strings"

	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/mdrollout"
)

// setStatus computes the whole status from what the reconcile read and did. Everything it
// writes is derived from the objects only (sorted names, no clock), so an unchanged world gives
// an unchanged status and the patch helper writes nothing.
func setStatus(s *scope, reconciled bool) {
	md := s.md
	if sel, err := selectorFor(md); err == nil {
		md.Status.Selector = sel.String()
	}

	if !md.DeletionTimestamp.IsZero() {
		msg := "Removing the finalizer"
		if len(s.machineSets) > 0 {
			names := make([]string, 0, len(s.machineSets))
			for _, ms := range s.machineSets {
				names = append(names, ms.Name)
			}
			msg = "Waiting for " + nameList("MachineSet", names) + " to be deleted"
		}
		conditions.Set(md, conditions.True(clusterv1.MachineDeploymentDeletingCondition, clusterv1.DeletingReason, msg))
	} else {
		conditions.Set(md, conditions.False(clusterv1.MachineDeploymentDeletingCondition, clusterv1.NotDeletingReason, ""))
	}
	if s.invalidSelector != "" {
		conditions.Set(md, conditions.False(clusterv1.MachineDeploymentScalingUpCondition, clusterv1.MachineDeploymentInvalidSelectorReason, s.invalidSelector))
		if reconciled {
			md.Status.ObservedGeneration = md.Generation
		}
	}
	if !s.read {
		return // keep the last known counts and conditions rather than report guesses
	}

	var current, ready, available, upToDate int32
	for _, ms := range s.machineSets {
		for _, m := range s.machines[ms.UID] {
			if !m.DeletionTimestamp.IsZero() {
				continue
			}
			current++
			if conditions.IsTrue(m, clusterv1.MachineReadyCondition) {
				ready++
			}
			if conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
				available++
			}
			// A Machine of an old MachineSet is outdated whatever its UpToDate condition says: the
			// MachineSet marks it only once it has seen the MachineDeployment's new template, and
			// until then an edited MachineDeployment would count its old Machines as up to date
			// under the new observedGeneration (`rollout status` would call the edit rolled out).
			if ms == s.newMS && conditions.IsTrue(m, clusterv1.MachineUpToDateCondition) {
				upToDate++
			}
		}
	}
	md.Status.Replicas = ptr.To(current)
	md.Status.ReadyReplicas = ptr.To(ready)
	md.Status.AvailableReplicas = ptr.To(available)
	md.Status.UpToDateReplicas = ptr.To(upToDate)

	desired := machineset.DesiredReplicas(md.Spec.Replicas, md.Annotations)
	var maxUnavailable int32
	if md.Spec.Rollout.Strategy.Type != clusterv1.OnDeleteMachineDeploymentStrategyType {
		if _, u, err := mdrollout.RollingUpdateLimits(desired, md.Spec.Rollout.Strategy.RollingUpdate); err == nil {
			maxUnavailable = u
		}
	}
	if minAvailable := desired - maxUnavailable; available >= minAvailable {
		conditions.Set(md, conditions.True(clusterv1.MachineDeploymentAvailableCondition, clusterv1.MachineDeploymentAvailableReason, ""))
	} else {
		conditions.Set(md, conditions.False(clusterv1.MachineDeploymentAvailableCondition, clusterv1.MachineDeploymentNotAvailableReason,
			fmt.Sprintf("%d available replicas, at least %d required (spec.replicas %d minus maxUnavailable %d)",
				available, minAvailable, desired, maxUnavailable)))
	}

	setRollingOut(s)

	switch {
	case current < desired:
		conditions.Set(md, conditions.True(clusterv1.MachineDeploymentScalingUpCondition, clusterv1.ScalingUpReason,
			fmt.Sprintf("Scaling up from %d to %d replicas", current, desired)))
		md.Status.Phase = string(clusterv1.MachineDeploymentPhaseScalingUp)
	default:
		conditions.Set(md, conditions.False(clusterv1.MachineDeploymentScalingUpCondition, clusterv1.NotScalingUpReason, ""))
	}
	switch {
	case current > desired:
		conditions.Set(md, conditions.True(clusterv1.MachineDeploymentScalingDownCondition, clusterv1.ScalingDownReason,
			fmt.Sprintf("Scaling down from %d to %d replicas", current, desired)))
		md.Status.Phase = string(clusterv1.MachineDeploymentPhaseScalingDown)
	default:
		conditions.Set(md, conditions.False(clusterv1.MachineDeploymentScalingDownCondition, clusterv1.NotScalingDownReason, ""))
	}
	if current == desired {
		md.Status.Phase = string(clusterv1.MachineDeploymentPhaseRunning)
	}

	if reconciled {
		md.Status.ObservedGeneration = md.Generation
	}
}

// setRollingOut reports the Machines of old revisions that are still to be replaced.
func setRollingOut(s *scope) {
	md := s.md
	var outdated int32
	var from []string
	for _, ms := range s.oldMSs {
		var n int32
		for _, m := range s.machines[ms.UID] {
			if m.DeletionTimestamp.IsZero() {
				n++
			}
		}
		if n > 0 {
			outdated += n
			from = append(from, fmt.Sprintf("%s/%s (revision %d): %d", ms.Namespace, ms.Name, mdrollout.Revision(ms), n))
		}
	}
	templateChanged := s.newMS == nil && len(s.machineSets) > 0
	if outdated == 0 && !templateChanged {
		conditions.Set(md, conditions.False(clusterv1.MachineDeploymentRollingOutCondition, clusterv1.NotRollingOutReason, ""))
		return
	}
	var msg string
	if templateChanged {
		msg = "The Machine template changed; no MachineSet for it exists yet"
	} else {
		msg = fmt.Sprintf("Rolling out %d not up-to-date Machines of MachineSet %s", outdated, strings.Join(from, ", "))
		if s.newMS != nil {
			msg += fmt.Sprintf(" to MachineSet %s/%s (revision %d)", s.newMS.Namespace, s.newMS.Name, mdrollout.Revision(s.newMS))
		}
	}
	if s.rolloutBlocked != "" {
		msg += "; " + s.rolloutBlocked
	}
	conditions.Set(md, conditions.True(clusterv1.MachineDeploymentRollingOutCondition, clusterv1.RollingOutReason, msg))
}

// nameList names objects of a kind in a message: the first three and a count of the rest.
func nameList(kind string, names []string) string {
	const shown = 3
	switch {
	case len(names) == 1:
		return kind + " " + names[0]
	case len(names) <= shown:
		return kind + "s " + strings.Join(names, ", ")
	default:
		return fmt.Sprintf("%ss %s and %d more", kind, strings.Join(names[:shown], ", "), len(names)-shown)
	}
}
