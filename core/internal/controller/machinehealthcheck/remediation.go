package machinehealthcheck

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Reasons of RemediationAllowed=False that the API package does not define.
const (
	// invalidTriggerIfReason: remediation.triggerIf cannot be evaluated (the CRD's
	// validation normally prevents this).
	invalidTriggerIfReason = "InvalidTriggerIf"
)

// remediationDecision is what remediation.triggerIf says for the current counts.
type remediationDecision struct {
	allowed bool
	// remaining is how many more Machines may become unhealthy and still be remediated.
	remaining int32
	// reason and message explain a refusal.
	reason, message string
}

// decideRemediation applies remediation.triggerIf to total targets of which unhealthy
// are unhealthy, as upstream's isAllowedRemediation does: with unhealthyInRange,
// min <= unhealthy <= max; otherwise unhealthy <= unhealthyLessThanOrEqualTo (default
// 100%), a percentage being of total and rounded down.
func decideRemediation(mhc *clusterv1.MachineHealthCheck, total, unhealthy int) remediationDecision {
	trigger := mhc.Spec.Remediation.TriggerIf
	if trigger.UnhealthyInRange != "" {
		lo, hi, err := parseUnhealthyRange(trigger.UnhealthyInRange)
		if err != nil {
			return remediationDecision{reason: invalidTriggerIfReason, message: "spec.remediation.triggerIf.unhealthyInRange: " + err.Error()}
		}
		if unhealthy < lo || unhealthy > hi {
			return remediationDecision{reason: clusterv1.MachineHealthCheckTooManyUnhealthyReason, message: fmt.Sprintf(
				"Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: %d, unhealthy: %d, unhealthyRange: %s)",
				total, unhealthy, trigger.UnhealthyInRange)}
		}
		return remediationDecision{allowed: true, remaining: clampInt32(hi - unhealthy)}
	}

	maxUnhealthy := intstr.FromString("100%")
	if trigger.UnhealthyLessThanOrEqualTo != nil {
		maxUnhealthy = *trigger.UnhealthyLessThanOrEqualTo
	}
	limit, err := scaledMaxUnhealthy(maxUnhealthy, total)
	if err != nil {
		return remediationDecision{reason: invalidTriggerIfReason, message: "spec.remediation.triggerIf.unhealthyLessThanOrEqualTo: " + err.Error()}
	}
	if unhealthy > limit {
		return remediationDecision{reason: clusterv1.MachineHealthCheckTooManyUnhealthyReason, message: fmt.Sprintf(
			"Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: %d, unhealthy: %d, maxUnhealthy: %s)",
			total, unhealthy, maxUnhealthy.String())}
	}
	return remediationDecision{allowed: true, remaining: clampInt32(limit - unhealthy)}
}

// scaledMaxUnhealthy is unhealthyLessThanOrEqualTo as a number of Machines: an integer
// as is, a percentage of total rounded down (upstream's
// GetScaledValueFromIntOrPercent(..., roundUp=false)).
func scaledMaxUnhealthy(v intstr.IntOrString, total int) (int, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, total, false)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("%s is negative", v.String())
	}
	return n, nil
}

// parseUnhealthyRange parses "[min-max]".
func parseUnhealthyRange(s string) (lo, hi int, err error) {
	inner, ok := strings.CutPrefix(s, "[")
	if ok {
		inner, ok = strings.CutSuffix(inner, "]")
	}
	minStr, maxStr, dash := strings.Cut(inner, "-")
	if !ok || !dash {
		return 0, 0, fmt.Errorf("%q is not a range: write it as \"[min-max]\", e.g. \"[3-5]\"", s)
	}
	l, err := strconv.ParseUint(minStr, 10, 31)
	if err != nil {
		return 0, 0, fmt.Errorf("%q: minimum %q is not a whole number", s, minStr)
	}
	h, err := strconv.ParseUint(maxStr, 10, 31)
	if err != nil {
		return 0, 0, fmt.Errorf("%q: maximum %q is not a whole number", s, maxStr)
	}
	if h < l {
		return 0, 0, fmt.Errorf("%q has its minimum above its maximum", s)
	}
	return int(l), int(h), nil
}

func clampInt32(n int) int32 {
	if n < 0 {
		return 0
	}
	return int32(min(n, 1<<31-1))
}
