package mdrollout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestRollingUpdateLimits_SurgeRoundsUpUnavailableRoundsDown(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { return ptr.To(intstr.FromString(s)) }
	num := func(n int32) *intstr.IntOrString { return ptr.To(intstr.FromInt32(n)) }
	tests := []struct {
		name                      string
		desired                   int32
		surge, unavailable        *intstr.IntOrString
		wantSurge, wantUnavailble int32
	}{
		{name: "defaults are 1 and 0", desired: 3, wantSurge: 1, wantUnavailble: 0},
		{name: "numbers", desired: 5, surge: num(2), unavailable: num(1), wantSurge: 2, wantUnavailble: 1},
		{name: "25% of 3: surge 0.75 rounds up to 1, unavailable rounds down to 0", desired: 3, surge: pct("25%"), unavailable: pct("25%"), wantSurge: 1, wantUnavailble: 0},
		{name: "50% of 5: surge 2.5 -> 3, unavailable 2.5 -> 2", desired: 5, surge: pct("50%"), unavailable: pct("50%"), wantSurge: 3, wantUnavailble: 2},
		{name: "100% of 4", desired: 4, surge: pct("100%"), unavailable: pct("100%"), wantSurge: 4, wantUnavailble: 4},
		{name: "both zero after rounding: unavailable becomes 1", desired: 3, surge: num(0), unavailable: pct("10%"), wantSurge: 0, wantUnavailble: 1},
		{name: "zero replicas", desired: 0, surge: pct("50%"), unavailable: pct("50%"), wantSurge: 0, wantUnavailble: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, u, err := RollingUpdateLimits(tt.desired, clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
				MaxSurge: tt.surge, MaxUnavailable: tt.unavailable,
			})
			require.NoError(t, err)
			require.Equal(t, tt.wantSurge, s, "maxSurge")
			require.Equal(t, tt.wantUnavailble, u, "maxUnavailable")
		})
	}
}

// ms builds a MachineSetState: spec replicas, then the availability of its Machines in deletion
// order ("a" available, "u" unavailable).
func ms(replicas int32, machines string) MachineSetState {
	s := MachineSetState{Replicas: replicas}
	for _, c := range machines {
		s.Available = append(s.Available, c == 'a')
	}
	return s
}

func TestPlanRollingUpdate(t *testing.T) {
	tests := []struct {
		name                string
		desired, surge, una int32
		newMS               MachineSetState
		old                 []MachineSetState
		wantNew             int32
		wantOld             []int32
	}{
		{
			name:    "start: the new MachineSet takes the surge, nothing old goes",
			desired: 3, surge: 1, una: 0,
			newMS: ms(0, ""), old: []MachineSetState{ms(3, "aaa")},
			wantNew: 1, wantOld: []int32{3},
		},
		{
			name:    "a new Machine is available: one old Machine goes",
			desired: 3, surge: 1, una: 0,
			newMS: ms(1, "a"), old: []MachineSetState{ms(3, "aaa")},
			wantNew: 1, wantOld: []int32{2},
		},
		{
			name:    "an old MachineSet still deleting its surplus holds the surge",
			desired: 3, surge: 1, una: 0,
			newMS: ms(1, "a"), old: []MachineSetState{ms(2, "aaa")},
			wantNew: 1, wantOld: []int32{2},
		},
		{
			name:    "surplus deleted: the new MachineSet grows",
			desired: 3, surge: 1, una: 0,
			newMS: ms(1, "a"), old: []MachineSetState{ms(2, "aa")},
			wantNew: 2, wantOld: []int32{2},
		},
		{
			name:    "the new Machine is not available yet: nothing old goes",
			desired: 3, surge: 1, una: 0,
			newMS: ms(2, "ua"), old: []MachineSetState{ms(2, "aa")},
			wantNew: 2, wantOld: []int32{2},
		},
		{
			name:    "maxUnavailable lets old Machines go before new ones are available",
			desired: 4, surge: 0, una: 2,
			newMS: ms(0, ""), old: []MachineSetState{ms(4, "aaaa")},
			wantNew: 0, wantOld: []int32{2},
		},
		{
			name:    "a broken old Machine goes first and does not block the rollout",
			desired: 3, surge: 1, una: 0,
			newMS: ms(1, "a"), old: []MachineSetState{ms(3, "uaa")},
			wantNew: 1, wantOld: []int32{2},
		},
		{
			name:    "old Machines still coming up are not all thrown away",
			desired: 3, surge: 1, una: 0,
			newMS: ms(1, "u"), old: []MachineSetState{ms(3, "uuu")},
			wantNew: 1, wantOld: []int32{3},
		},
		{
			name:    "replicas never created cost nothing",
			desired: 3, surge: 1, una: 0,
			newMS: ms(1, "u"), old: []MachineSetState{ms(3, "a")},
			wantNew: 1, wantOld: []int32{1},
		},
		{
			name:    "oldest MachineSet shrinks first",
			desired: 2, surge: 1, una: 0,
			newMS: ms(1, "a"), old: []MachineSetState{ms(1, "a"), ms(1, "a")},
			wantNew: 1, wantOld: []int32{0, 1},
		},
		{
			name:    "scaling down mid-rollout caps the new MachineSet",
			desired: 1, surge: 1, una: 0,
			newMS: ms(3, "aaa"), old: []MachineSetState{ms(2, "aa")},
			wantNew: 1, wantOld: []int32{0},
		},
		{
			name:    "a lone, current MachineSet just scales",
			desired: 5, surge: 1, una: 0,
			newMS: ms(2, "aa"), old: nil,
			wantNew: 5, wantOld: []int32{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotNew, gotOld := PlanRollingUpdate(tt.desired, tt.surge, tt.una, tt.newMS, tt.old)
			require.Equal(t, tt.wantNew, gotNew, "new MachineSet replicas")
			require.Equal(t, tt.wantOld, gotOld, "old MachineSet replicas")
		})
	}
}

func TestPlanOnDelete(t *testing.T) {
	// Nobody deleted anything: the new MachineSet gets nothing.
	n, old := PlanOnDelete(3, []MachineSetState{ms(3, "aaa")})
	require.Equal(t, int32(0), n)
	require.Equal(t, []int32{3}, old)
	// A user deleted one old Machine: the old MachineSet shrinks, the new one takes over.
	n, old = PlanOnDelete(3, []MachineSetState{ms(3, "aa")})
	require.Equal(t, int32(1), n)
	require.Equal(t, []int32{2}, old)
	// Scaling down takes from the oldest first.
	n, old = PlanOnDelete(2, []MachineSetState{ms(2, "aa"), ms(2, "aa")})
	require.Equal(t, int32(0), n)
	require.Equal(t, []int32{0, 2}, old)
}

func TestPlanScaleOnly(t *testing.T) {
	n, others := PlanScaleOnly(5, []int32{2})
	require.Equal(t, int32(3), n)
	require.Equal(t, []int32{2}, others)
	n, others = PlanScaleOnly(1, []int32{2, 1})
	require.Equal(t, int32(0), n)
	require.Equal(t, []int32{0, 1}, others)
}

// TestPlanRollingUpdate_SimulatedRolloutKeepsAvailabilityAndSurge runs whole rollouts against a
// simulated world in which MachineSets act late (the planner often plans again before they have
// deleted or created anything) and new Machines become available one at a time, and checks after
// every event that availability never drops below desired-maxUnavailable and that Machines never
// exceed desired+maxSurge.
func TestPlanRollingUpdate_SimulatedRolloutKeepsAvailabilityAndSurge(t *testing.T) {
	type simMS struct {
		replicas  int32
		available []bool // deletion order: unavailable Machines first
	}
	act := func(s *simMS) {
		for int32(len(s.available)) > s.replicas { // delete in deletion order
			s.available = s.available[1:]
		}
		for int32(len(s.available)) < s.replicas { // new Machines start unavailable
			s.available = append([]bool{false}, s.available...)
		}
	}
	state := func(s *simMS) MachineSetState {
		return MachineSetState{Replicas: s.replicas, Available: append([]bool(nil), s.available...)}
	}
	count := func(all []*simMS) (machines, available int32) {
		for _, s := range all {
			for _, a := range s.available {
				machines++
				if a {
					available++
				}
			}
		}
		return machines, available
	}
	for _, c := range []struct{ desired, surge, una int32 }{
		{3, 1, 0}, {5, 1, 0}, {5, 2, 1}, {4, 0, 1}, {10, 3, 2}, {1, 1, 0}, {6, 0, 3},
	} {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("desired=%d/surge=%d/unavailable=%d/seed=%d", c.desired, c.surge, c.una, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 42))
				old := &simMS{replicas: c.desired}
				for range c.desired {
					old.available = append(old.available, true)
				}
				newMS := &simMS{}
				all := []*simMS{old, newMS}
				minAvailable := c.desired - c.una
				check := func(when string) {
					machines, available := count(all)
					require.GreaterOrEqual(t, available, minAvailable, "availability after %s", when)
					require.LessOrEqual(t, machines, c.desired+c.surge, "surge after %s", when)
				}
				for step := 0; ; step++ {
					require.Less(t, step, 1000, "the rollout does not converge")
					newR, oldR := PlanRollingUpdate(c.desired, c.surge, c.una, state(newMS), []MachineSetState{state(old)})
					newMS.replicas, old.replicas = newR, oldR[0]
					// MachineSets act in a random order, and sometimes not before the next plan.
					for _, i := range rng.Perm(2) {
						if rng.IntN(3) > 0 {
							act(all[i])
							check("a MachineSet acted")
						}
					}
					// Some unavailable new Machine becomes available.
					for i, a := range newMS.available {
						if !a && rng.IntN(2) == 0 {
							newMS.available[i] = true
							// keep the deletion order: unavailable first
							newMS.available = append(append([]bool{}, newMS.available[:i]...), newMS.available[i+1:]...)
							newMS.available = append(newMS.available, true)
							check("a Machine became available")
							break
						}
					}
					_, newAvailable := count([]*simMS{newMS})
					if old.replicas == 0 && len(old.available) == 0 && newMS.replicas == c.desired && newAvailable == c.desired {
						return
					}
				}
			})
		}
	}
}
