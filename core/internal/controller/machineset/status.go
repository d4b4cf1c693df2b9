package machineset

import (
	"fmt"
	"strings"

	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes the whole status from what the reconcile read and did. Everything it
// writes is derived from the objects only (sorted names, no clock), so an unchanged world gives
// an unchanged status and the patch helper writes nothing.
func setStatus(s *scope, reconciled bool) {
	ms := s.ms
	if sel, err := selectorFor(ms); err == nil {
		ms.Status.Selector = sel.String()
	}
	if s.invalidSelector != "" {
		conditions.Set(ms, conditions.False(clusterv1.MachineSetScalingUpCondition, clusterv1.MachineSetInvalidSelectorReason, s.invalidSelector))
		if reconciled {
			ms.Status.ObservedGeneration = ms.Generation
		}
	}
	if !s.machinesRead {
		return // keep the last known counts and conditions rather than report guesses
	}
	var current, ready, available, upToDate int32
	var deletingNames, notReady, notUpToDate, remediating []string
	for _, m := range s.machines {
		if deleting(m) {
			deletingNames = append(deletingNames, m.Name)
			if remediationInFlight(m) {
				remediating = append(remediating, m.Name)
			}
			continue
		}
		current++
		if conditions.IsTrue(m, clusterv1.MachineReadyCondition) {
			ready++
		} else {
			notReady = append(notReady, m.Name)
		}
		if conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
			available++
		}
		if conditions.IsTrue(m, clusterv1.MachineUpToDateCondition) {
			upToDate++
		} else {
			notUpToDate = append(notUpToDate, m.Name)
		}
		if needsRemediation(m) && !cannotBeRemediated(m) {
			remediating = append(remediating, m.Name)
		}
	}
	total := int32(len(s.machines))
	ms.Status.Replicas = ptr.To(total)
	ms.Status.ReadyReplicas = ptr.To(ready)
	ms.Status.AvailableReplicas = ptr.To(available)
	ms.Status.UpToDateReplicas = ptr.To(upToDate)

	desired := DesiredReplicas(ms.Spec.Replicas, ms.Annotations)
	deletingMS := !ms.DeletionTimestamp.IsZero()

	switch {
	case !deletingMS && current < desired:
		msg := fmt.Sprintf("Scaling up from %d to %d replicas", current, desired)
		if s.scaleUpBlocked != "" {
			msg += "; " + s.scaleUpBlocked
		} else if total >= desired && len(deletingNames) > 0 {
			msg += fmt.Sprintf("; waiting for %s to be deleted before creating replacements", machineList(deletingNames))
		}
		conditions.Set(ms, conditions.True(clusterv1.MachineSetScalingUpCondition, clusterv1.MachineSetScalingUpReason, msg))
	default:
		conditions.Set(ms, conditions.False(clusterv1.MachineSetScalingUpCondition, clusterv1.MachineSetNotScalingUpReason, ""))
	}

	switch {
	case deletingMS && total > 0:
		conditions.Set(ms, conditions.True(clusterv1.MachineSetScalingDownCondition, clusterv1.MachineSetScalingDownReason,
			fmt.Sprintf("Scaling down from %d to 0 replicas because the MachineSet is being deleted", total)))
	case !deletingMS && total > desired:
		msg := fmt.Sprintf("Scaling down from %d to %d replicas", total, desired)
		if len(deletingNames) > 0 {
			msg += fmt.Sprintf("; waiting for %s to be deleted", machineList(deletingNames))
		}
		conditions.Set(ms, conditions.True(clusterv1.MachineSetScalingDownCondition, clusterv1.MachineSetScalingDownReason, msg))
	default:
		conditions.Set(ms, conditions.False(clusterv1.MachineSetScalingDownCondition, clusterv1.MachineSetNotScalingDownReason, ""))
	}

	switch {
	case current == 0:
		conditions.Set(ms, conditions.True(clusterv1.MachineSetMachinesReadyCondition, clusterv1.NoReplicasReason, ""))
	case len(notReady) == 0:
		conditions.Set(ms, conditions.True(clusterv1.MachineSetMachinesReadyCondition, clusterv1.ReadyReason, ""))
	default:
		conditions.Set(ms, conditions.False(clusterv1.MachineSetMachinesReadyCondition, clusterv1.NotReadyReason,
			fmt.Sprintf("%s not ready", machineList(notReady))))
	}

	switch {
	case current == 0:
		conditions.Set(ms, conditions.True(clusterv1.MachineSetMachinesUpToDateCondition, clusterv1.NoReplicasReason, ""))
	case len(notUpToDate) == 0:
		conditions.Set(ms, conditions.True(clusterv1.MachineSetMachinesUpToDateCondition, clusterv1.UpToDateReason, ""))
	default:
		conditions.Set(ms, conditions.False(clusterv1.MachineSetMachinesUpToDateCondition, clusterv1.NotUpToDateReason,
			fmt.Sprintf("%s not up to date", machineList(notUpToDate))))
	}

	if len(remediating) > 0 {
		msg := fmt.Sprintf("Remediating %s", machineList(remediating))
		if s.deferredRemediations > 0 {
			msg += fmt.Sprintf("; %d deferred by spec.remediation.maxInFlight of the MachineDeployment", s.deferredRemediations)
		}
		conditions.Set(ms, conditions.True(clusterv1.MachineSetRemediatingCondition, clusterv1.RemediatingReason, msg))
	} else {
		conditions.Set(ms, conditions.False(clusterv1.MachineSetRemediatingCondition, clusterv1.NotRemediatingReason, ""))
	}

	if deletingMS {
		msg := "Removing the finalizer"
		if total > 0 {
			msg = fmt.Sprintf("Waiting for %s to be deleted", machineList(machineNames(s.machines)))
		}
		conditions.Set(ms, conditions.True(clusterv1.MachineSetDeletingCondition, clusterv1.DeletingReason, msg))
	} else {
		conditions.Set(ms, conditions.False(clusterv1.MachineSetDeletingCondition, clusterv1.NotDeletingReason, ""))
	}

	if reconciled {
		ms.Status.ObservedGeneration = ms.Generation
	}
}

func machineNames(machines []*clusterv1.Machine) []string {
	out := make([]string, 0, len(machines))
	for _, m := range machines {
		out = append(out, m.Name)
	}
	return out
}

// machineList names Machines in a message: "Machine a", "Machines a, b, c", or the first three
// and a count of the rest. names must be sorted.
func machineList(names []string) string {
	const shown = 3
	switch {
	case len(names) == 1:
		return "Machine " + names[0]
	case len(names) <= shown:
		return "Machines " + strings.Join(names, ", ")
	default:
		return fmt.Sprintf("Machines %s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
	}
}
