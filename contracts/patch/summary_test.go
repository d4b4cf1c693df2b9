package patch_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"capstan.dev/contracts/patch"
)

// A summary's counter-only status change waits for the interval since its last write; a
// condition that moves, or a new observedGeneration, is written at once; an object never
// written (or not for longer than the interval) is written at once.
func TestSummaryLimiter_HoldsCounterOnlyWritesWithinTheInterval(t *testing.T) {
	l := &patch.SummaryLimiter{Interval: 10 * time.Second}
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	notReady := []metav1.Condition{{Type: "MachinesReady", Status: metav1.ConditionFalse, Reason: "NotReady", Message: "Machines a, b not ready"}}
	oneLeft := []metav1.Condition{{Type: "MachinesReady", Status: metav1.ConditionFalse, Reason: "NotReady", Message: "Machine b not ready"}}
	ready := []metav1.Condition{{Type: "MachinesReady", Status: metav1.ConditionTrue, Reason: "Ready"}}

	require.Zero(t, l.Hold("ms", notReady, oneLeft, 1, 1, t0), "never written: written now")
	l.Wrote("ms", t0)
	require.Equal(t, 7*time.Second, l.Hold("ms", notReady, oneLeft, 1, 1, t0.Add(3*time.Second)), "a message and counters only: held")
	require.Zero(t, l.Hold("ms", oneLeft, ready, 1, 1, t0.Add(3*time.Second)), "a condition moved: written now")
	require.Zero(t, l.Hold("ms", notReady, oneLeft, 1, 2, t0.Add(3*time.Second)), "a new observedGeneration: written now")
	require.LessOrEqual(t, l.Hold("ms", notReady, oneLeft, 1, 1, t0.Add(10*time.Second)), time.Duration(0), "the interval passed: written now")
	require.Zero(t, l.Hold("other", notReady, oneLeft, 1, 1, t0.Add(3*time.Second)), "another object is not held by this one's write")
	require.True(t, patch.ConditionsMoved(notReady, append(notReady, ready[0])), "a condition that appears moves")
}
