package events

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

// capture is an inner recorder keeping what reached it.
type capture struct {
	reasons  []string
	versions []string
	notes    []string
}

func (c *capture) Eventf(regarding, _ runtime.Object, _, reason, _, note string, args ...any) {
	c.reasons = append(c.reasons, reason)
	c.notes = append(c.notes, fmt.Sprintf(note, args...))
	c.versions = append(c.versions, regarding.(*corev1.ConfigMap).ResourceVersion)
}

func object(uid, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", UID: types.UID("uid-" + uid), ResourceVersion: rv}}
}

func TestRecorder_LimitsEachObjectToABurstThenOnePerFiveMinutes(t *testing.T) {
	inner := &capture{}
	clock := clocktesting.NewFakePassiveClock(time.Now())
	r := newLimited(inner, clock)
	for range burst + 5 {
		r.Eventf(object("a", "1"), nil, Warning, "FailedDrainNode", "Drain", "stuck")
	}
	require.Len(t, inner.reasons, burst, "a burst of 25 per object, the rest dropped")

	r.Eventf(object("b", "1"), nil, Normal, "SuccessfulCreate", "Create", "other object")
	require.Len(t, inner.reasons, burst+1, "another object has its own bucket")

	clock.SetTime(clock.Now().Add(5 * time.Minute))
	r.Eventf(object("a", "1"), nil, Warning, "FailedDrainNode", "Drain", "stuck")
	r.Eventf(object("a", "1"), nil, Warning, "FailedDrainNode", "Drain", "stuck")
	require.Len(t, inner.reasons, burst+2, "one token back after five minutes")
}

func TestRecorder_DropsTheResourceVersionSoRepeatsAggregate(t *testing.T) {
	inner := &capture{}
	r := newLimited(inner, clocktesting.NewFakePassiveClock(time.Now()))
	obj := object("a", "42")
	r.Eventf(obj, nil, Normal, "SuccessfulCreate", "Create", "created")
	require.Equal(t, []string{""}, inner.versions)
	require.Equal(t, "42", obj.ResourceVersion, "the caller's object is not changed")
}

// TestRecorder_CutsANoteToTheAPILimitKeepingItsBeginningAndEnd: the API server refuses a note
// over 1 KiB (the Event would be lost); what to do and the last lines of an output survive.
func TestRecorder_CutsANoteToTheAPILimitKeepingItsBeginningAndEnd(t *testing.T) {
	inner := &capture{}
	r := newLimited(inner, clocktesting.NewFakePassiveClock(time.Now()))
	r.Eventf(object("a", "1"), nil, Warning, "FailedBootstrap", "Bootstrap", "short: %d%%", 100)
	long := "Bootstrap command 3 exited with 1; delete the Machine to replace it; output tail:\n" +
		fmt.Sprintf("%01200d", 0) + "é" + fmt.Sprintf("%0500d", 0) + "\nthe last line"
	r.Eventf(object("a", "1"), nil, Warning, "FailedBootstrap", "Bootstrap", "%s", long)
	require.Equal(t, "short: 100%", inner.notes[0])
	got := inner.notes[1]
	require.LessOrEqual(t, len(got), maxNote)
	require.Contains(t, got, "delete the Machine to replace it")
	require.Contains(t, got, "the last line")
	require.Contains(t, got, "[...]")
}
