package conditions

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestSet_KeepsTransitionTimeUnlessStatusFlips(t *testing.T) {
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	Set(m, False("Ready", "NotReady", "waiting"))
	first := Get(m, "Ready")
	require.NotNil(t, first)
	require.Equal(t, int64(3), first.ObservedGeneration)
	require.False(t, first.LastTransitionTime.IsZero())
	stamp := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	m.Status.Conditions[0].LastTransitionTime = stamp // as if set an hour ago

	Set(m, False("Ready", "NotReady", "still waiting"))
	require.Equal(t, stamp, Get(m, "Ready").LastTransitionTime, "same status: same transition time")
	require.Equal(t, "still waiting", Get(m, "Ready").Message)

	Set(m, True("Ready", "Ready", ""))
	require.True(t, IsTrue(m, "Ready"))
	require.True(t, Get(m, "Ready").LastTransitionTime.After(stamp.Time), "a flip moves the transition time")
}

func TestSet_KeepsTheListSortedByType(t *testing.T) {
	m := &clusterv1.Machine{}
	Set(m, True("Ready", "Ready", ""))
	Set(m, True("Available", "Available", ""))
	Set(m, True("Paused", "NotPaused", ""))
	var types []string
	for _, c := range m.GetConditions() {
		types = append(types, c.Type)
	}
	require.Equal(t, []string{"Available", "Paused", "Ready"}, types)
	Delete(m, "Paused")
	require.Nil(t, Get(m, "Paused"))
	require.Len(t, m.GetConditions(), 2)
}

func TestUnstructuredGet(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind": "GenericInfrastructureMachine", "metadata": map[string]any{"name": "m", "namespace": "ns"},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "False", "reason": "Booting", "message": "container starting",
				"lastTransitionTime": "2026-01-01T00:00:00Z"},
		}},
	}}
	c, err := UnstructuredGet(u, "Ready")
	require.NoError(t, err)
	require.Equal(t, metav1.ConditionFalse, c.Status)
	require.Equal(t, "container starting", c.Message)

	c, err = UnstructuredGet(u, "Other")
	require.NoError(t, err)
	require.Nil(t, c)

	require.NoError(t, unstructured.SetNestedField(u.Object, "oops", "status", "conditions"))
	_, err = UnstructuredGet(u, "Ready")
	require.ErrorContains(t, err, "status.conditions of GenericInfrastructureMachine ns/m")
}
