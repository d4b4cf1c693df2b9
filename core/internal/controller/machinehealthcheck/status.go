package machinehealthcheck

import (
	"sort"

	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes the MachineHealthCheck's status from what the reconcile judged. It
// is the only place that writes it, and it is deterministic: targets are sorted, counts
// are plain numbers, conditions keep their transition time unless their status flips,
// and messages carry no timestamps, so a steady MachineHealthCheck is never re-written
// (upstream #3998). When the targets could not be judged (paused, workload cluster not
// connected), the last judgement stays.
func setStatus(s *scope) {
	mhc := s.mhc
	mhc.Status.ObservedGeneration = mhc.Generation
	if !s.evaluated {
		return
	}
	names := make([]string, 0, len(s.targets))
	for _, t := range s.targets {
		names = append(names, t.machine.Name)
	}
	// getTargets sorts by name already; the status must not depend on that staying true.
	mhc.Status.Targets = sortedOrNil(names)
	mhc.Status.ExpectedMachines = ptr.To(int32(len(s.targets)))
	mhc.Status.CurrentHealthy = ptr.To(int32(s.healthy))
	mhc.Status.RemediationsAllowed = ptr.To(s.remediation.remaining)

	const t = clusterv1.MachineHealthCheckRemediationAllowedCondition
	if s.remediation.allowed {
		conditions.Set(mhc, conditions.True(t, clusterv1.MachineHealthCheckRemediationAllowedReason, ""))
	} else {
		conditions.Set(mhc, conditions.False(t, s.remediation.reason, s.remediation.message))
	}
}

func sortedOrNil(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return names
}
