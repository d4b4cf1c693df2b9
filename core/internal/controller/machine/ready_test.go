package machine

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// TestReadyCondition_HonoursReadinessGatesAndTheHealthCheck: a Machine whose bootstrap,
// infrastructure and Node are fine is Ready only when every spec.readinessGates condition is in
// its healthy state (a missing one is not) and a MachineHealthCheck, when it reported, found it
// healthy. Before, readiness gates were accepted and ignored.
func TestReadyCondition_HonoursReadinessGatesAndTheHealthCheck(t *testing.T) {
	healthy := func(gates ...clusterv1.MachineReadinessGate) *clusterv1.Machine {
		m := &clusterv1.Machine{Spec: clusterv1.MachineSpec{ReadinessGates: gates}}
		for _, ct := range []string{clusterv1.MachineBootstrapConfigReadyCondition, clusterv1.MachineInfrastructureReadyCondition, clusterv1.MachineNodeHealthyCondition} {
			conditions.Set(m, conditions.True(ct, "Fine", ""))
		}
		return m
	}
	gate := func(ct string, p clusterv1.ConditionPolarity) clusterv1.MachineReadinessGate {
		return clusterv1.MachineReadinessGate{ConditionType: ct, Polarity: p}
	}
	tests := []struct {
		name        string
		machine     *clusterv1.Machine
		set         []metav1.Condition
		wantStatus  metav1.ConditionStatus
		wantMessage string
	}{
		{"NoGates", healthy(), nil, metav1.ConditionTrue, ""},
		{"AGateNobodyReported", healthy(gate("example.com/Warm", "")), nil,
			metav1.ConditionFalse, "example.com/Warm is not True"},
		{"APositiveGateTrue", healthy(gate("example.com/Warm", clusterv1.PositivePolarityCondition)),
			[]metav1.Condition{conditions.True("example.com/Warm", "Warm", "")}, metav1.ConditionTrue, ""},
		{"APositiveGateFalseGivesItsMessage", healthy(gate("example.com/Warm", "")),
			[]metav1.Condition{conditions.False("example.com/Warm", "Cold", "cache 10% warm")},
			metav1.ConditionFalse, "example.com/Warm: cache 10% warm"},
		{"ANegativeGateFalse", healthy(gate("example.com/Draining", clusterv1.NegativePolarityCondition)),
			[]metav1.Condition{conditions.False("example.com/Draining", "Idle", "")}, metav1.ConditionTrue, ""},
		{"ANegativeGateTrue", healthy(gate("example.com/Draining", clusterv1.NegativePolarityCondition)),
			[]metav1.Condition{conditions.True("example.com/Draining", "Busy", "")}, metav1.ConditionFalse, "example.com/Draining is not False"},
		{"AGateOnAStandardConditionCountsOnce", healthy(gate(clusterv1.MachineNodeHealthyCondition, "")),
			[]metav1.Condition{conditions.False(clusterv1.MachineNodeHealthyCondition, "Sick", "")},
			metav1.ConditionFalse, "NodeHealthy is not True"},
		{"AnUnhealthyHealthCheck", healthy(),
			[]metav1.Condition{conditions.False(clusterv1.MachineHealthCheckSucceededCondition, "UnhealthyNode", "Node Ready=False for 5m")},
			metav1.ConditionFalse, "HealthCheckSucceeded: Node Ready=False for 5m"},
		{"AHealthyHealthCheck", healthy(),
			[]metav1.Condition{conditions.True(clusterv1.MachineHealthCheckSucceededCondition, "Healthy", "")}, metav1.ConditionTrue, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range tt.set {
				conditions.Set(tt.machine, c)
			}
			got := readyCondition(tt.machine)
			require.Equal(t, tt.wantStatus, got.Status)
			require.Equal(t, tt.wantMessage, got.Message)
		})
	}
}
