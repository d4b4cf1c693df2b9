package conditions

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestStamp_KeepsTransitionTimeUnlessStatusFlips(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := time.Date(2026, 5, 1, 12, 0, 0, 500, time.UTC)
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	m.Status.Conditions = []metav1.Condition{{Type: clusterv1.MachineHealthCheckSucceededCondition, Status: metav1.ConditionTrue,
		Reason: clusterv1.MachineHealthCheckSucceededReason, LastTransitionTime: then, ObservedGeneration: 3}}

	same := Stamp(m, metav1.Condition{Type: clusterv1.MachineHealthCheckSucceededCondition, Status: metav1.ConditionTrue,
		Reason: clusterv1.MachineHealthCheckSucceededReason}, now)
	require.True(t, Same(m.Status.Conditions[0], same), "recomputing the same condition gives the same condition: no write")

	flipped := Stamp(m, metav1.Condition{Type: clusterv1.MachineHealthCheckSucceededCondition, Status: metav1.ConditionFalse,
		Reason: clusterv1.MachineHealthCheckNodeDeletedReason}, now)
	require.Equal(t, metav1.NewTime(now.Truncate(time.Second)), flipped.LastTransitionTime)
	require.Equal(t, int64(3), flipped.ObservedGeneration)
	require.False(t, Same(m.Status.Conditions[0], flipped))
}
