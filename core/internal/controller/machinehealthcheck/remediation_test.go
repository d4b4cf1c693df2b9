package machinehealthcheck

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestDecideRemediation_AppliesTriggerIfLikeUpstream(t *testing.T) {
	intOrStr := func(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }
	tests := []struct {
		name                 string
		lessThanOrEqualTo    *intstr.IntOrString
		inRange              string
		templateRef          bool
		total, unhealthy     int
		wantAllowed          bool
		wantRemaining        int32
		wantReason, wantText string
	}{
		{name: "default is 100%", total: 3, unhealthy: 3, wantAllowed: true},
		{name: "no targets", total: 0, unhealthy: 0, wantAllowed: true},
		{name: "percentage rounds down and allows", lessThanOrEqualTo: intOrStr("40%"), total: 3, unhealthy: 1, wantAllowed: true},
		{name: "percentage rounds down and refuses", lessThanOrEqualTo: intOrStr("40%"), total: 3, unhealthy: 2,
			wantReason: clusterv1.MachineHealthCheckTooManyUnhealthyReason,
			wantText:   "Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 2, maxUnhealthy: 40%)"},
		{name: "number leaves room", lessThanOrEqualTo: intOrStr("3"), total: 10, unhealthy: 1, wantAllowed: true, wantRemaining: 2},
		{name: "number refuses", lessThanOrEqualTo: intOrStr("1"), total: 10, unhealthy: 2,
			wantReason: clusterv1.MachineHealthCheckTooManyUnhealthyReason,
			wantText:   "Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 10, unhealthy: 2, maxUnhealthy: 1)"},
		{name: "0% allows only a healthy set", lessThanOrEqualTo: intOrStr("0%"), total: 5, unhealthy: 0, wantAllowed: true},
		{name: "range below minimum", inRange: "[2-3]", total: 5, unhealthy: 1,
			wantReason: clusterv1.MachineHealthCheckTooManyUnhealthyReason,
			wantText:   "Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: 5, unhealthy: 1, unhealthyRange: [2-3])"},
		{name: "range within", inRange: "[2-3]", total: 5, unhealthy: 2, wantAllowed: true, wantRemaining: 1},
		{name: "range takes precedence", inRange: "[2-3]", lessThanOrEqualTo: intOrStr("0"), total: 5, unhealthy: 3, wantAllowed: true},
		{name: "range above maximum", inRange: "[2-3]", total: 5, unhealthy: 4,
			wantReason: clusterv1.MachineHealthCheckTooManyUnhealthyReason,
			wantText:   "Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: 5, unhealthy: 4, unhealthyRange: [2-3])"},
		{name: "malformed range", inRange: "[3-1]", total: 5, unhealthy: 2, wantReason: invalidTriggerIfReason,
			wantText: `spec.remediation.triggerIf.unhealthyInRange: "[3-1]" has its minimum above its maximum`},
		// triggerIf limits external remediation like the owner's.
		{name: "external remediation within limits", templateRef: true, total: 1, unhealthy: 1, wantAllowed: true},
		{name: "external remediation past limits", templateRef: true, lessThanOrEqualTo: intOrStr("0"), total: 2, unhealthy: 1,
			wantReason: clusterv1.MachineHealthCheckTooManyUnhealthyReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mhc := &clusterv1.MachineHealthCheck{}
			mhc.Spec.Remediation.TriggerIf.UnhealthyLessThanOrEqualTo = tt.lessThanOrEqualTo
			mhc.Spec.Remediation.TriggerIf.UnhealthyInRange = tt.inRange
			if tt.templateRef {
				mhc.Spec.Remediation.TemplateRef = clusterv1.MachineHealthCheckRemediationTemplateReference{
					Kind: "FooRemediationTemplate", Name: "t", APIVersion: "remediation.cluster.x-k8s.io/v1beta1"}
			}
			got := decideRemediation(mhc, tt.total, tt.unhealthy)
			require.Equal(t, tt.wantAllowed, got.allowed)
			require.Equal(t, tt.wantRemaining, got.remaining)
			require.Equal(t, tt.wantReason, got.reason)
			if tt.wantText != "" {
				require.Equal(t, tt.wantText, got.message)
			}
		})
	}
}

func TestScaledMaxUnhealthy_RoundsPercentagesDown(t *testing.T) {
	for _, tt := range []struct {
		v     string
		total int
		want  int
	}{
		{"40%", 3, 1}, {"50%", 5, 2}, {"100%", 0, 0}, {"100%", 7, 7}, {"0%", 7, 0}, {"33%", 10, 3}, {"2", 1, 2},
	} {
		got, err := scaledMaxUnhealthy(intstr.Parse(tt.v), tt.total)
		require.NoError(t, err)
		require.Equal(t, tt.want, got, "%s of %d", tt.v, tt.total)
	}
	_, err := scaledMaxUnhealthy(intstr.FromString("lots"), 3)
	require.Error(t, err)
}

func TestParseUnhealthyRange_AcceptsOnlyMinDashMaxInBrackets(t *testing.T) {
	for _, tt := range []struct {
		in     string
		lo, hi int
		ok     bool
	}{
		{"[0-0]", 0, 0, true}, {"[3-5]", 3, 5, true}, {"[10-200]", 10, 200, true},
		{"3-5", 0, 0, false}, {"[3-5", 0, 0, false}, {"[35]", 0, 0, false}, {"[a-5]", 0, 0, false},
		{"[3-b]", 0, 0, false}, {"[5-3]", 0, 0, false}, {"[-1-3]", 0, 0, false}, {"", 0, 0, false},
	} {
		lo, hi, err := parseUnhealthyRange(tt.in)
		if !tt.ok {
			require.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		require.Equal(t, []int{tt.lo, tt.hi}, []int{lo, hi}, tt.in)
	}
}
