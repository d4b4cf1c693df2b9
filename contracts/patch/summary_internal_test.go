package patch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Counter-only writes in a row double the spacing up to MaxInterval; a write that moves a
// condition, or a quiet MaxInterval, starts it again at Interval. So counters that move for
// ten minutes cost about a dozen writes instead of sixty.
func TestSummaryLimiter_SpacingGrowsWhileOnlyCountersMove(t *testing.T) {
	l := &SummaryLimiter{Interval: 10 * time.Second, MaxInterval: 60 * time.Second}
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	counters := []metav1.Condition{{Type: "MachinesReady", Status: metav1.ConditionFalse, Reason: "NotReady"}}
	hold := func(at time.Time) time.Duration { return l.Hold("md", counters, counters, 1, 1, at) }

	l.Wrote("md", t0) // a condition moved
	require.Equal(t, 10*time.Second, hold(t0))
	at, want := t0, []time.Duration{10, 20, 40, 60, 60}
	for i, d := range want {
		at = at.Add(d * time.Second)
		require.LessOrEqual(t, hold(at), time.Duration(0), "write %d is due %ds after the one before", i+1, d)
		l.record("md", at, true)
		if i+1 < len(want) {
			require.Equal(t, want[i+1]*time.Second, hold(at), "after %d counter-only writes in a row", i+1)
		}
	}

	l.Wrote("md", at) // a condition moved again
	require.Equal(t, 10*time.Second, hold(at))
	l.record("md", at.Add(10*time.Second), true)
	require.Equal(t, 20*time.Second, hold(at.Add(10*time.Second)))
	quiet := at.Add(10*time.Second + 61*time.Second)
	l.record("other", quiet, true) // forgets md, quiet for longer than MaxInterval
	require.Zero(t, hold(quiet), "after a quiet MaxInterval the next counter-only write is not held")

	writes, at := 0, t0
	l.Wrote("big", t0)
	for end := t0.Add(10 * time.Minute); at.Before(end); at = at.Add(time.Second) {
		if l.Hold("big", counters, counters, 1, 1, at) <= 0 {
			l.record("big", at, true)
			writes++
		}
	}
	require.Equal(t, 11, writes, "counters moving every second for ten minutes: after 10, 20 and 40 s, then every 60 s")
}
