package upgrade

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestCompute_HookHolds: what lifecycle hooks hold stays where it is, with the hook's line, and
// only what they hold: a control plane hold keeps the control plane (and, as before, its workers
// and new workers wait for it); a workers hold keeps existing workers at their version while the
// control plane is stable and new ones uncreated only with a create hold.
func TestCompute_HookHolds(t *testing.T) {
	cases := []struct {
		name        string
		in          Input
		wantCP      string
		wantMDs     map[string]string
		wantPending []string
	}{
		{
			name: "control plane held before its step",
			in: Input{Target: v38, ControlPlane: stable(v37), Hooks: HookHolds{ControlPlane: "held by the BeforeClusterUpgrade hook"},
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-new"})},
			wantCP: v37, wantMDs: map[string]string{"md-0": v37, "md-new": v38},
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.38.0 pending: held by the BeforeClusterUpgrade hook",
				"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrade pending",
				"MachineDeployment md-new creation deferred: control plane upgrade pending"},
		},
		{
			name: "workers and their creation held after the control plane's step",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				Hooks:              HookHolds{Workers: "held by the AfterControlPlaneUpgrade hook", Create: "held by the AfterControlPlaneUpgrade hook"},
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-new"})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v37, "md-new": v38},
			wantPending: []string{"MachineDeployment md-0 upgrade to v1.38.0 deferred: held by the AfterControlPlaneUpgrade hook",
				"MachineDeployment md-new creation deferred: held by the AfterControlPlaneUpgrade hook"},
		},
		{
			name: "workers held, creation not",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1, Hooks: HookHolds{Workers: "held by the BeforeWorkersUpgrade hook"},
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-new"})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v37, "md-new": v38},
			wantPending: []string{"MachineDeployment md-0 upgrade to v1.38.0 deferred: held by the BeforeWorkersUpgrade hook"},
		},
		{
			name: "a workers hold does not replace the control plane's own reason",
			in: Input{Target: v38, ControlPlane: ControlPlane{Version: v38, StatusVersion: v37, Upgrading: true}, Hooks: HookHolds{Workers: "held by the BeforeWorkersUpgrade hook"},
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v37},
			wantPending: []string{"Control plane upgrading to v1.38.0", "MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrading"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(tc.in)
			require.Equal(t, tc.wantCP, p.ControlPlaneVersion)
			if d := cmp.Diff(tc.wantMDs, p.MachineDeploymentVersions); d != "" {
				t.Errorf("MachineDeployment versions (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantPending, p.Pending); d != "" {
				t.Errorf("pending (-want +got):\n%s", d)
			}
		})
	}
}
