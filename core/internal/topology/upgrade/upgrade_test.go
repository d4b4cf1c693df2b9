package upgrade

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

const (
	v37 = "v1.37.2"
	v38 = "v1.38.0"
)

// stable is a control plane at v that is neither provisioning, upgrading nor scaling.
func stable(v string) ControlPlane { return ControlPlane{Version: v, StatusVersion: v} }

func mds(entries ...Worker) []Worker { return entries }

func TestCompute(t *testing.T) {
	cases := []struct {
		name        string
		in          Input
		wantCP      string
		wantMDs     map[string]string
		wantReason  string
		wantPending []string
	}{
		{
			name:   "new cluster: everything at the topology version, nothing pending",
			in:     Input{Target: v38, MachineDeployments: mds(Worker{TopologyName: "md-0"})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38},
		},
		{
			name:   "settled: nothing changes",
			in:     Input{Target: v37, ControlPlane: stable(v37), MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37})},
			wantCP: v37, wantMDs: map[string]string{"md-0": v37},
		},
		{
			name: "version change: the control plane first, workers wait",
			in: Input{Target: v38, ControlPlane: stable(v37), Concurrency: 1,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-1", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v37, "md-1": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason,
			wantPending: []string{"Control plane upgrading to v1.38.0",
				"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrading",
				"MachineDeployment md-1 upgrade to v1.38.0 deferred: control plane upgrading"},
		},
		{
			name: "control plane upgrading: workers wait, a new worker's creation too",
			in: Input{Target: v38, ControlPlane: ControlPlane{Version: v38, StatusVersion: v37, Upgrading: true},
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-new"})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v37, "md-new": v38},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason,
			wantPending: []string{"Control plane upgrading to v1.38.0",
				"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrading",
				"MachineDeployment md-new creation deferred: control plane upgrading"},
		},
		{
			name: "control plane upgraded and stable: one worker at a time, in topology order",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-1", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38, "md-1": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0",
				"MachineDeployment md-1 upgrade to v1.38.0 deferred: upgrade concurrency 1 reached (upgrading: md-0)"},
		},
		{
			name: "a worker still rolling out counts against the concurrency",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v38, Upgrading: true}, Worker{TopologyName: "md-1", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38, "md-1": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0",
				"MachineDeployment md-1 upgrade to v1.38.0 deferred: upgrade concurrency 1 reached (upgrading: md-0)"},
		},
		{
			name: "concurrency 2 releases two workers",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 2,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-1", Version: v37},
					Worker{TopologyName: "md-2", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38, "md-1": v38, "md-2": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0", "MachineDeployment md-1 upgrading to v1.38.0",
				"MachineDeployment md-2 upgrade to v1.38.0 deferred: upgrade concurrency 2 reached (upgrading: md-0, md-1)"},
		},
		{
			name: "last worker rolling out with nothing held: ClusterUpgrading",
			in: Input{Target: v38, ControlPlane: stable(v38),
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v38, Upgrading: true})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38},
			wantReason:  clusterv1.ClusterTopologyReconciledClusterUpgradingReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0"},
		},
		{
			name: "control plane scaling: its upgrade waits",
			in: Input{Target: v38, ControlPlane: ControlPlane{Version: v37, StatusVersion: v37, Scaling: true},
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37})},
			wantCP: v37, wantMDs: map[string]string{"md-0": v37},
			wantReason: clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.38.0 pending: control plane is scaling",
				"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrade pending"},
		},
		{
			name:   "control plane provisioning: its upgrade waits",
			in:     Input{Target: v38, ControlPlane: ControlPlane{Version: v37, Provisioning: true}},
			wantCP: v37, wantMDs: map[string]string{},
			wantReason:  clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.38.0 pending: control plane is provisioning"},
		},
		{
			name:   "control plane still upgrading to an older target: the new one waits",
			in:     Input{Target: "v1.37.3", ControlPlane: ControlPlane{Version: v37, StatusVersion: "v1.37.1", Upgrading: true}},
			wantCP: v37, wantMDs: map[string]string{},
			wantReason:  clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.37.3 pending: control plane is upgrading to v1.37.2"},
		},
		{
			name: "workers still rolling out: the control plane waits",
			in: Input{Target: v38, ControlPlane: stable(v37),
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37, Upgrading: true})},
			wantCP: v37, wantMDs: map[string]string{"md-0": v37},
			wantReason: clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.38.0 pending: MachineDeployments upgrading: md-0",
				"MachineDeployment md-0 upgrade to v1.38.0 deferred: control plane upgrade pending"},
		},
		{
			name:   "two minor versions at once: refused",
			in:     Input{Target: "v1.39.0", ControlPlane: stable(v37), MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37})},
			wantCP: v37, wantMDs: map[string]string{"md-0": v37},
			wantReason: clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.39.0 pending: spec.topology.version v1.39.0 is more than one minor version ahead " +
				"of the control plane's v1.37.2: upgrade one minor version at a time (v1.38.x first), or list the versions between in the ClusterClass's spec.kubernetesVersions",
				"MachineDeployment md-0 upgrade to v1.39.0 deferred: control plane upgrade pending"},
		},
		{
			name:   "downgrade: refused",
			in:     Input{Target: "v1.36.0", ControlPlane: stable(v37)},
			wantCP: v37, wantMDs: map[string]string{},
			wantReason: clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.37.2 to v1.36.0 pending: spec.topology.version v1.36.0 is older than the control plane's v1.37.2: " +
				"downgrades are not supported, set spec.topology.version back to v1.37.2"},
		},
		{
			name: "workers never move past the control plane",
			in: Input{Target: "v1.39.0", ControlPlane: stable(v38),
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-1", Version: "v1.39.0"})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38, "md-1": "v1.39.0"},
			wantReason: clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.38.0 to v1.39.0 pending: MachineDeployments a minor version behind the control plane " +
				"must reach v1.38.0 first (no two minor versions of skew): md-0 at v1.37.2",
				"MachineDeployment md-0 upgrading to v1.38.0"},
		},
		{
			name: "defer-upgrade holds only its entry",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 5,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37, Defer: true}, Worker{TopologyName: "md-1", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v37, "md-1": v38},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradeDeferredReason,
			wantPending: []string{"MachineDeployment md-0 upgrade to v1.38.0 deferred: topology.cluster.x-k8s.io/defer-upgrade annotation set",
				"MachineDeployment md-1 upgrading to v1.38.0"},
		},
		{
			name: "hold-upgrade-sequence holds its entry and every later one",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 5,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}, Worker{TopologyName: "md-1", Version: v37, Hold: true},
					Worker{TopologyName: "md-2", Version: v37})},
			wantCP: v38, wantMDs: map[string]string{"md-0": v38, "md-1": v37, "md-2": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradeDeferredReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0",
				"MachineDeployment md-1 upgrade to v1.38.0 deferred: topology.cluster.x-k8s.io/hold-upgrade-sequence annotation set on md-1",
				"MachineDeployment md-2 upgrade to v1.38.0 deferred: topology.cluster.x-k8s.io/hold-upgrade-sequence annotation set on md-1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(tc.in)
			require.Equal(t, tc.wantCP, p.ControlPlaneVersion)
			if diff := cmp.Diff(tc.wantMDs, p.MachineDeploymentVersions); diff != "" {
				t.Fatalf("MachineDeployment versions (-want +got):\n%s", diff)
			}
			require.Equal(t, tc.wantReason, p.Reason)
			if diff := cmp.Diff(tc.wantPending, p.Pending, cmpEmpty); diff != "" {
				t.Fatalf("pending (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestConcurrency_DefaultsToOneAndRefusesNonPositiveOrNonIntegers(t *testing.T) {
	n, err := Concurrency(nil)
	require.Nil(t, err)
	require.Equal(t, 1, n)
	n, err = Concurrency(map[string]string{clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation: "3"})
	require.Nil(t, err)
	require.Equal(t, 3, n)
	for _, bad := range []string{"0", "-1", "two", ""} {
		_, err := Concurrency(map[string]string{clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation: bad})
		require.NotNil(t, err, bad)
		require.Contains(t, err.Error(), "metadata.annotations[topology.cluster.x-k8s.io/upgrade-concurrency]")
		require.Contains(t, err.Error(), "must be an integer of at least 1")
	}
}

// TestCompute_MachinePoolsUpgradeAfterTheControlPlaneAndTheMachineDeployments: pools wait for the
// control plane, then for every MachineDeployment that is upgrading or held (not for deferred
// ones), have their own concurrency count and annotations, and hold the control plane while
// they upgrade.
func TestCompute_MachinePoolsUpgradeAfterTheControlPlaneAndTheMachineDeployments(t *testing.T) {
	cases := []struct {
		name        string
		in          Input
		wantMDs     map[string]string
		wantMPs     map[string]string
		wantReason  string
		wantPending []string
	}{
		{
			name:    "new pool: created at the topology version",
			in:      Input{Target: v38, MachinePools: mds(Worker{TopologyName: "mp-0"})},
			wantMDs: map[string]string{}, wantMPs: map[string]string{"mp-0": v38},
		},
		{
			name: "control plane upgrading: the pool waits",
			in: Input{Target: v38, ControlPlane: stable(v37), Concurrency: 1,
				MachinePools: mds(Worker{TopologyName: "mp-0", Version: v37})},
			wantMDs: map[string]string{}, wantMPs: map[string]string{"mp-0": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason,
			wantPending: []string{"Control plane upgrading to v1.38.0",
				"MachinePool mp-0 upgrade to v1.38.0 deferred: control plane upgrading"},
		},
		{
			name: "control plane upgraded: the MachineDeployment moves, the pool waits for it",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37}),
				MachinePools:       mds(Worker{TopologyName: "mp-0", Version: v37})},
			wantMDs: map[string]string{"md-0": v38}, wantMPs: map[string]string{"mp-0": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0",
				"MachinePool mp-0 upgrade to v1.38.0 deferred: MachineDeployments upgrade first: md-0"},
		},
		{
			name: "MachineDeployment still rolling out: the pool waits",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v38, Upgrading: true}),
				MachinePools:       mds(Worker{TopologyName: "mp-0", Version: v37})},
			wantMDs: map[string]string{"md-0": v38}, wantMPs: map[string]string{"mp-0": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason,
			wantPending: []string{"MachineDeployment md-0 upgrading to v1.38.0",
				"MachinePool mp-0 upgrade to v1.38.0 deferred: MachineDeployments upgrade first: md-0"},
		},
		{
			name: "MachineDeployments done, one deferred: pools move, their own concurrency",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v38}, Worker{TopologyName: "md-1", Version: v37, Defer: true}),
				MachinePools:       mds(Worker{TopologyName: "mp-0", Version: v37}, Worker{TopologyName: "mp-1", Version: v37})},
			wantMDs: map[string]string{"md-0": v38, "md-1": v37}, wantMPs: map[string]string{"mp-0": v38, "mp-1": v37},
			wantReason: clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason,
			wantPending: []string{"MachineDeployment md-1 upgrade to v1.38.0 deferred: topology.cluster.x-k8s.io/defer-upgrade annotation set",
				"MachinePool mp-0 upgrading to v1.38.0",
				"MachinePool mp-1 upgrade to v1.38.0 deferred: upgrade concurrency 1 reached (upgrading: mp-0)"},
		},
		{
			name: "defer-upgrade on a pool",
			in: Input{Target: v38, ControlPlane: stable(v38), Concurrency: 1,
				MachinePools: mds(Worker{TopologyName: "mp-0", Version: v37, Defer: true})},
			wantMDs: map[string]string{}, wantMPs: map[string]string{"mp-0": v37},
			wantReason:  clusterv1.ClusterTopologyReconciledMachinePoolsUpgradeDeferredReason,
			wantPending: []string{"MachinePool mp-0 upgrade to v1.38.0 deferred: topology.cluster.x-k8s.io/defer-upgrade annotation set"},
		},
		{
			name: "a pool still upgrading holds the next control plane upgrade",
			in: Input{Target: "v1.39.0", ControlPlane: stable(v38),
				MachinePools: mds(Worker{TopologyName: "mp-0", Version: v38, Upgrading: true})},
			wantMDs: map[string]string{}, wantMPs: map[string]string{"mp-0": v38},
			wantReason: clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason,
			wantPending: []string{"Control plane upgrade from v1.38.0 to v1.39.0 pending: MachinePools upgrading: mp-0",
				"MachinePool mp-0 upgrade to v1.39.0 deferred: control plane upgrade pending"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(tc.in)
			require.Empty(t, cmp.Diff(tc.wantMDs, p.MachineDeploymentVersions), "MachineDeployment versions")
			require.Empty(t, cmp.Diff(tc.wantMPs, p.MachinePoolVersions), "MachinePool versions")
			require.Equal(t, tc.wantReason, p.Reason)
			require.Empty(t, cmp.Diff(tc.wantPending, p.Pending, cmpEmpty), "pending")
		})
	}
}

// TestCompute_NewWorkersAreCreatedOnceTheControlPlaneIsStableAtTheTarget: as upstream's pending
// create, a MachineDeployment or MachinePool added while the control plane is provisioning,
// about to upgrade, upgrading, scaling or waiting for workers to upgrade is not created (it would join at
// the version the control plane leaves, or ahead of the one it runs, and roll out again); it is
// created with a new Cluster's control plane, or once the control plane is stable, at the target.
func TestCompute_NewWorkersAreCreatedOnceTheControlPlaneIsStableAtTheTarget(t *testing.T) {
	newWorkers := func(in Input) Input {
		in.MachineDeployments = append(in.MachineDeployments, Worker{TopologyName: "md-new"})
		in.MachinePools = append(in.MachinePools, Worker{TopologyName: "mp-new"})
		return in
	}
	for _, tc := range []struct {
		name string
		in   Input
		why  string // "": created now
	}{
		{"new Cluster", Input{Target: v38}, ""},
		{"control plane stable at the target", Input{Target: v38, ControlPlane: stable(v38)}, ""},
		{"control plane scaling or rolling out", Input{Target: v38, ControlPlane: ControlPlane{Version: v38, StatusVersion: v38, Scaling: true}}, "control plane scaling"},
		{"control plane provisioning", Input{Target: v38, ControlPlane: ControlPlane{Version: v38, Provisioning: true}}, "control plane provisioning"},
		{"control plane about to upgrade", Input{Target: v38, ControlPlane: stable(v37)}, "control plane upgrading"},
		{"control plane upgrading", Input{Target: v38, ControlPlane: ControlPlane{Version: v38, StatusVersion: v37, Upgrading: true}}, "control plane upgrading"},
		{"control plane waiting for a worker to upgrade", Input{Target: v38, ControlPlane: stable(v37),
			MachineDeployments: mds(Worker{TopologyName: "md-0", Version: v37, Upgrading: true})}, "control plane upgrade pending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(newWorkers(tc.in))
			require.Equal(t, v38, p.MachineDeploymentVersions["md-new"], "a new worker is created at the target")
			require.Equal(t, v38, p.MachinePoolVersions["mp-new"])
			require.Equal(t, tc.why != "", p.MachineDeploymentsCreatePending["md-new"])
			require.Equal(t, tc.why != "", p.MachinePoolsCreatePending["mp-new"])
			if tc.why != "" {
				require.Contains(t, p.Pending, "MachineDeployment md-new creation deferred: "+tc.why)
				require.Contains(t, p.Pending, "MachinePool mp-new creation deferred: "+tc.why)
				require.NotEmpty(t, p.Reason, "TopologyReconciled is False while a creation waits")
			}
		})
	}
}
