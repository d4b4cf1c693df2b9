package machineset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

var t0 = time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)

// machine builds a Machine for ordering tests: created age hours after t0, healthy unless a
// modifier says otherwise.
func machine(name string, hoursAfterT0 int, mods ...func(*clusterv1.Machine)) *clusterv1.Machine {
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{
		Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(hoursAfterT0) * time.Hour)),
	}}
	m.Status.NodeRef = clusterv1.MachineNodeReference{Name: name}
	conditions.Set(m, conditions.True(clusterv1.MachineReadyCondition, clusterv1.MachineReadyReason, ""))
	for _, mod := range mods {
		mod(m)
	}
	return m
}

func beingDeleted(m *clusterv1.Machine) {
	now := metav1.NewTime(t0)
	m.DeletionTimestamp = &now
}

func markedForDeletion(m *clusterv1.Machine) {
	m.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: ""}
}

func withoutNode(m *clusterv1.Machine) { m.Status.NodeRef = clusterv1.MachineNodeReference{} }

func nodeUnhealthy(m *clusterv1.Machine) {
	conditions.Set(m, conditions.False(clusterv1.MachineNodeHealthyCondition, clusterv1.MachineNodeNotHealthyReason, ""))
}

func healthCheckFailed(m *clusterv1.Machine) {
	conditions.Set(m, conditions.False(clusterv1.MachineHealthCheckSucceededCondition, clusterv1.MachineHealthCheckUnhealthyNodeReason, ""))
}

func notReady(m *clusterv1.Machine) {
	conditions.Set(m, conditions.False(clusterv1.MachineReadyCondition, clusterv1.MachineNotReadyReason, ""))
}

func names(machines []*clusterv1.Machine) []string {
	out := make([]string, 0, len(machines))
	for _, m := range machines {
		out = append(out, m.Name)
	}
	return out
}

func TestSortForDeletion_PriorityThenPolicy(t *testing.T) {
	// The same set of Machines under each order: the priority tiers always lead, in the same
	// order; only the healthy tail depends on the order.
	set := func() []*clusterv1.Machine {
		return []*clusterv1.Machine{
			machine("healthy-old", 0),
			machine("healthy-mid", 5),
			machine("healthy-new", 10),
			machine("unhealthy-no-node", 7, withoutNode),
			machine("marked", 8, markedForDeletion),
			machine("deleting", 9, beingDeleted),
			machine("marked-and-unhealthy", 1, markedForDeletion, withoutNode),
		}
	}
	head := []string{"deleting", "marked", "marked-and-unhealthy", "unhealthy-no-node"}
	tests := []struct {
		order clusterv1.MachineSetDeletionOrder
		tail  []string
	}{
		{order: clusterv1.OldestMachineSetDeletionOrder, tail: []string{"healthy-old", "healthy-mid", "healthy-new"}},
		{order: clusterv1.NewestMachineSetDeletionOrder, tail: []string{"healthy-new", "healthy-mid", "healthy-old"}},
		// Random orders a tier by name (names end in a random suffix in real life).
		{order: clusterv1.RandomMachineSetDeletionOrder, tail: []string{"healthy-mid", "healthy-new", "healthy-old"}},
		{order: "", tail: []string{"healthy-mid", "healthy-new", "healthy-old"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.order), func(t *testing.T) {
			machines := set()
			require.NoError(t, SortForDeletion(machines, tt.order))
			got := names(machines)
			// Within the marked tier the policy orders too: with Oldest, marked-and-unhealthy
			// (created at +1h) goes before marked (+8h).
			wantHead := head
			if tt.order == clusterv1.OldestMachineSetDeletionOrder {
				wantHead = []string{"deleting", "marked-and-unhealthy", "marked", "unhealthy-no-node"}
			}
			require.Equal(t, append(append([]string{}, wantHead...), tt.tail...), got)
		})
	}
}

func TestMachineDeletionTier_UnhealthyMeansNoNodeUnhealthyNodeFailedCheckOrNotReady(t *testing.T) {
	tests := []struct {
		name string
		m    *clusterv1.Machine
		want deletionTier
	}{
		{"healthy", machine("m", 0), tierPolicy},
		{"no node", machine("m", 0, withoutNode), tierUnhealthy},
		{"node unhealthy", machine("m", 0, nodeUnhealthy), tierUnhealthy},
		{"health check failed", machine("m", 0, healthCheckFailed), tierUnhealthy},
		{"not ready", machine("m", 0, notReady), tierUnhealthy},
		{"marked beats unhealthy", machine("m", 0, withoutNode, markedForDeletion), tierMarked},
		{"deleting beats marked", machine("m", 0, markedForDeletion, beingDeleted), tierDeleting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, machineDeletionTier(tt.m))
		})
	}
}

func TestSortForDeletion_RejectsUnknownOrder(t *testing.T) {
	err := SortForDeletion([]*clusterv1.Machine{machine("a", 0)}, "Smallest")
	require.ErrorContains(t, err, "must be one of 'Random', 'Newest', or 'Oldest'")
}

func TestSortForDeletion_IsStableAcrossCalls(t *testing.T) {
	// A retried scale down must pick the same Machines, whatever order the list came in.
	a := []*clusterv1.Machine{machine("c", 0), machine("a", 0), machine("b", 0)}
	b := []*clusterv1.Machine{machine("b", 0), machine("c", 0), machine("a", 0)}
	require.NoError(t, SortForDeletion(a, clusterv1.RandomMachineSetDeletionOrder))
	require.NoError(t, SortForDeletion(b, clusterv1.RandomMachineSetDeletionOrder))
	require.Equal(t, names(a), names(b))
}
