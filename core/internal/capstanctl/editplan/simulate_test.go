package editplan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// old builds an old MachineSet of the simulation: its Machines in deletion order, "name" for an
// available one and "name?" for one that is not.
func old(names ...string) *simSet {
	s := &simSet{replicas: int32(len(names))}
	for _, n := range names {
		if n[len(n)-1] == '?' {
			s.machines = append(s.machines, simMachine{name: n[:len(n)-1]})
		} else {
			s.machines = append(s.machines, simMachine{name: n, available: true})
		}
	}
	return s
}

func TestSimulateRollingUpdate_StepsFollowThePlanner(t *testing.T) {
	tests := []struct {
		name                    string
		desired, surge, unavail int32
		old                     []*simSet
		want                    []Step
	}{
		{"Surge2Of4CreatesTwoThenReplacesTwoAtATime", 4, 2, 0, []*simSet{old("a", "b", "c", "d")}, []Step{
			{Create: 2, Surge: 2},
			{Create: 2, Surge: 2, Delete: []string{"a", "b"}},
			{Delete: []string{"c", "d"}},
		}},
		// The planner's capacity rule keeps even an unavailable old Machine until a new one is
		// available; it is then the first to go (first in its MachineSet's deletion order).
		{"AnUnavailableOldMachineGoesFirst", 3, 1, 0, []*simSet{old("b?", "a", "c")}, []Step{
			{Create: 1, Surge: 1},
			{Create: 1, Surge: 1, Delete: []string{"b"}},
			{Create: 1, Surge: 1, Delete: []string{"a"}},
			{Delete: []string{"c"}},
		}},
		{"TwoOldRevisionsOldestFirst", 2, 0, 1, []*simSet{old("x"), old("y")}, []Step{
			{Create: 1, Delete: []string{"x"}},
			{Create: 1, Delete: []string{"y"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simulateRollingUpdate(tt.desired, tt.surge, tt.unavail, &simSet{}, tt.old)
			require.Equal(t, tt.want, r.steps)
			require.False(t, r.stuck)
		})
	}
}
