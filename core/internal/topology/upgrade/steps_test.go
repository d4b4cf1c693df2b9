package upgrade

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/version"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// classVersions is a ClusterClass's spec.kubernetesVersions with several patches of some minors.
var classVersions = []string{"v1.34.1", "v1.35.0", "v1.35.3", "v1.36.0", "v1.36.2", "v1.37.2"}

func TestControlPlaneSteps(t *testing.T) {
	cases := []struct {
		name, from, to string
		listed         []string
		want           []string
		wantWhy        string
	}{
		{name: "patch", from: "v1.37.0", to: "v1.37.2", want: []string{"v1.37.2"}},
		{name: "one minor without a list", from: "v1.36.0", to: "v1.37.2", want: []string{"v1.37.2"}},
		{name: "two minors without a list", from: "v1.35.0", to: "v1.37.2",
			wantWhy: "spec.topology.version v1.37.2 is more than one minor version ahead of the control plane's v1.35.0: upgrade one minor version at a time (v1.36.x first), or list the versions between in the ClusterClass's spec.kubernetesVersions"},
		{name: "chained: the newest listed patch of every minor between", from: "v1.34.1", to: "v1.37.2", listed: classVersions,
			want: []string{"v1.35.3", "v1.36.2", "v1.37.2"}},
		{name: "listed: one minor is one step", from: "v1.36.0", to: "v1.37.2", listed: classVersions, want: []string{"v1.37.2"}},
		{name: "listed: the target must be listed", from: "v1.36.0", to: "v1.37.1", listed: classVersions,
			wantWhy: "spec.topology.version v1.37.1 is not one of the ClusterClass's spec.kubernetesVersions (v1.34.1, v1.35.0, v1.35.3, v1.36.0, v1.36.2, v1.37.2): use one of them, or add it to the class"},
		{name: "listed with a gap", from: "v1.34.1", to: "v1.37.2", listed: []string{"v1.34.1", "v1.36.2", "v1.37.2"},
			wantWhy: "the ClusterClass's spec.kubernetesVersions lists no v1.35 version between the control plane's v1.34.1 and spec.topology.version v1.37.2: add one, the control plane upgrades one minor version at a time"},
		{name: "downgrade", from: "v1.37.2", to: "v1.36.2", listed: classVersions,
			wantWhy: "spec.topology.version v1.36.2 is older than the control plane's v1.37.2: downgrades are not supported, set spec.topology.version back to v1.37.2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := controlPlaneSteps(tc.from, tc.to, tc.listed)
			require.Equal(t, tc.wantWhy, why)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestWorkerSteps_FollowTheControlPlaneMinorByMinor(t *testing.T) {
	cpSteps := []string{"v1.35.3", "v1.36.2", "v1.37.2"}
	// A worker a minor behind the control plane must first reach the control plane's version.
	require.Equal(t, []string{"v1.34.1", "v1.35.3", "v1.36.2", "v1.37.2"}, workerSteps("v1.33.0", "v1.34.1", cpSteps))
	// At the control plane's minor, it follows each later step but the next one's patch.
	require.Equal(t, []string{"v1.35.3", "v1.36.2", "v1.37.2"}, workerSteps("v1.34.0", "v1.34.1", cpSteps))
	require.Equal(t, []string{"v1.37.2"}, workerSteps("v1.36.2", "v1.36.2", []string{"v1.37.2"}))
	require.Equal(t, []string{"v1.37.2"}, workerSteps("v1.36.2", "v1.37.2", nil))
	require.Nil(t, workerSteps("v1.37.2", "v1.37.2", nil))
}

// world is a topology Cluster whose objects do what the plan says, one reconcile at a time: a
// control plane or worker given a new version upgrades, and is done at the next reconcile.
type world struct {
	cp      ControlPlane
	workers []Worker
}

func (w *world) input(target string, listed []string) Input {
	return Input{Target: target, ControlPlane: w.cp, MachineDeployments: append([]Worker{}, w.workers...), Concurrency: 1, KubernetesVersions: listed}
}

func (w *world) apply(p *Plan) {
	if w.cp.Upgrading {
		w.cp.StatusVersion, w.cp.Upgrading = w.cp.Version, false
	} else if p.ControlPlaneVersion != w.cp.Version {
		w.cp.Version, w.cp.Upgrading = p.ControlPlaneVersion, true
	}
	for i := range w.workers {
		md := &w.workers[i]
		if md.Upgrading {
			md.Upgrading = false
		} else if v := p.MachineDeploymentVersions[md.TopologyName]; v != md.Version {
			md.Version, md.Upgrading = v, true
		}
	}
}

// skewViolation says how the world breaks the version skew rules ("" when it does not): a
// worker newer than the oldest version the control plane runs, or more than MaxWorkerSkew minor
// versions behind the newest.
func (w *world) skewViolation() string {
	oldest, newest := mustParse(w.cp.StatusVersion), mustParse(w.cp.Version)
	for _, md := range w.workers {
		v := mustParse(md.Version)
		switch {
		case oldest.LessThan(v):
			return fmt.Sprintf("%s at %s ahead of the control plane's %s", md.TopologyName, md.Version, w.cp.StatusVersion)
		case v.Minor()+MaxWorkerSkew < newest.Minor():
			return fmt.Sprintf("%s at %s more than %d minor behind the control plane's %s", md.TopologyName, md.Version, MaxWorkerSkew, w.cp.Version)
		}
	}
	return ""
}

func mustParse(s string) *version.Version {
	v, err := contract.ParseKubernetesVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestCompute_ChainedUpgradeThroughTheClassVersions(t *testing.T) {
	w := &world{cp: stable("v1.34.1"), workers: []Worker{{TopologyName: "md-0", Version: "v1.34.1"}, {TopologyName: "md-1", Version: "v1.34.1"}}}
	target := "v1.37.2"
	var cpVersions []string
	first := Compute(w.input(target, classVersions))
	require.Equal(t, []string{"v1.35.3", "v1.36.2", "v1.37.2"}, first.ControlPlaneUpgradePlan)
	require.Equal(t, []string{"v1.35.3", "v1.36.2", "v1.37.2"}, first.WorkersUpgradePlan)
	require.Equal(t, "Control plane upgrading to v1.35.3, then v1.36.2, v1.37.2", first.Pending[0])
	mid := Compute(Input{Target: target, ControlPlane: ControlPlane{Version: "v1.35.3", StatusVersion: "v1.34.1", Upgrading: true},
		KubernetesVersions: classVersions, MachineDeployments: mds(Worker{TopologyName: "md-0", Version: "v1.34.1"})})
	require.Equal(t, clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason, mid.Reason)
	require.Equal(t, []string{"Control plane upgrading to v1.35.3, then v1.36.2, v1.37.2",
		"MachineDeployment md-0 upgrade to v1.37.2 deferred: control plane upgrading"}, mid.Pending)
	require.Equal(t, []string{"v1.35.3", "v1.36.2", "v1.37.2"}, mid.ControlPlaneUpgradePlan, "from the version it runs")
	for i := 0; ; i++ {
		require.Less(t, i, 100, "the upgrade did not settle")
		p := Compute(w.input(target, classVersions))
		if p.Reason == "" {
			require.Empty(t, p.ControlPlaneUpgradePlan)
			require.Empty(t, p.WorkersUpgradePlan)
			break
		}
		before := w.cp.Version
		w.apply(p)
		if w.cp.Version != before {
			cpVersions = append(cpVersions, w.cp.Version)
		}
		require.Empty(t, w.skewViolation(), "after reconcile %d: %s", i, p.Message())
	}
	require.Equal(t, []string{"v1.35.3", "v1.36.2", "v1.37.2"}, cpVersions, "the control plane's steps")
	for _, md := range w.workers {
		require.Equal(t, target, md.Version)
	}
}

func TestCompute_ChainedUpgradeHoldsTheControlPlaneForItsWorkers(t *testing.T) {
	// The control plane at v1.35.3, a worker still at v1.34: the worker catches up first.
	in := Input{Target: "v1.37.2", ControlPlane: stable("v1.35.3"), Concurrency: 1, KubernetesVersions: classVersions,
		MachineDeployments: mds(Worker{TopologyName: "md-0", Version: "v1.34.1"}, Worker{TopologyName: "md-1", Version: "v1.35.3"})}
	p := Compute(in)
	require.Equal(t, "v1.35.3", p.ControlPlaneVersion)
	require.Equal(t, map[string]string{"md-0": "v1.35.3", "md-1": "v1.35.3"}, p.MachineDeploymentVersions)
	require.Equal(t, clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason, p.Reason)
	require.Equal(t, "Control plane upgrade from v1.35.3 to v1.37.2 through v1.36.2 pending: MachineDeployments a minor version behind "+
		"the control plane must reach v1.35.3 first (no two minor versions of skew): md-0 at v1.34.1", p.Pending[0])
	require.Equal(t, []string{"v1.35.3", "v1.36.2", "v1.37.2"}, p.WorkersUpgradePlan)
}

// TestCheckSteps_RefusesPlansUpstreamRefuses: a GenerateUpgradePlan answer must go up one minor
// version at most per step and end at the target.
func TestCheckSteps_RefusesPlansUpstreamRefuses(t *testing.T) {
	for _, tc := range []struct {
		steps []string
		want  string
	}{
		{[]string{"v1.38.0", "v1.39.1"}, ""},
		{[]string{"v1.37.3", "v1.38.0", "v1.39.1"}, ""},
		{nil, "no controlPlaneUpgrades"},
		{[]string{"v1.39.1"}, "controlPlaneUpgrades[0] v1.39.1 is more than one minor version after"},
		{[]string{"v1.38.0", "v1.38.0", "v1.39.1"}, "controlPlaneUpgrades[1] v1.38.0 is not newer"},
		{[]string{"v1.38.0"}, "the last of controlPlaneUpgrades is v1.38.0, not spec.topology.version v1.39.1"},
		{[]string{"banana"}, `controlPlaneUpgrades[0] "banana" is not a Kubernetes version`},
	} {
		got := CheckSteps("v1.37.2", "v1.39.1", tc.steps)
		if tc.want == "" {
			require.Empty(t, got, "%v", tc.steps)
		} else {
			require.Contains(t, got, tc.want, "%v", tc.steps)
		}
	}
}

// TestCompute_ControlPlaneStepsComeFromTheExtensionWhenSet.
func TestCompute_ControlPlaneStepsComeFromTheExtensionWhenSet(t *testing.T) {
	in := Input{Target: "v1.39.1", Concurrency: 1, ControlPlane: ControlPlane{Version: "v1.37.2", StatusVersion: "v1.37.2"},
		ControlPlaneSteps: func(from string) ([]string, string) { return []string{"v1.38.7", "v1.39.1"}, "" }}
	p := Compute(in)
	require.Equal(t, "v1.38.7", p.ControlPlaneVersion)
	require.Equal(t, []string{"v1.38.7", "v1.39.1"}, p.ControlPlaneUpgradePlan)
}

// TestCheckWorkerSteps_RefusesPlansUpstreamRefuses: the workers' steps an extension answers must
// be versions of the control plane's plan (or its version), newer each time, within the
// kubelet's three minor versions of skew, ending at the target; none is fine (computed).
func TestCheckWorkerSteps_RefusesPlansUpstreamRefuses(t *testing.T) {
	cpSteps := []string{"v1.35.0", "v1.36.0", "v1.37.0", "v1.38.0", "v1.39.1"}
	for _, tc := range []struct {
		oldest  string
		workers []string
		want    string
	}{
		{"v1.34.2", nil, ""},
		{"v1.34.2", []string{"v1.39.1"}, "workersUpgrades[0] v1.39.1 is more than 3 minor versions after 1.34.2"},
		{"v1.34.2", []string{"v1.37.0", "v1.39.1"}, ""},
		{"v1.34.2", []string{"v1.34.2", "v1.37.0", "v1.39.1"}, "workersUpgrades[0] v1.34.2 is not newer than 1.34.2"},
		{"v1.33.0", []string{"v1.34.2", "v1.37.0", "v1.39.1"}, ""},
		{"v1.34.2", []string{"v1.36.5", "v1.39.1"}, "workersUpgrades[0] v1.36.5 is neither the control plane's version v1.34.2 nor one of its steps"},
		{"v1.34.2", []string{"v1.37.0", "v1.38.0"}, "the last of workersUpgrades is v1.38.0, not spec.topology.version v1.39.1"},
		{"v1.39.1", []string{"v1.39.1"}, "no worker is behind spec.topology.version v1.39.1"},
		{"", []string{"v1.39.1"}, "no worker is behind"},
	} {
		got := CheckWorkerSteps("v1.34.2", tc.oldest, "v1.39.1", cpSteps, tc.workers)
		if tc.want == "" {
			require.Empty(t, got, "%v", tc.workers)
		} else {
			require.Contains(t, got, tc.want, "%v", tc.workers)
		}
	}
}

// TestCompute_WorkersFollowTheExtensionsWorkersSteps: with the extension's workers' plan the
// control plane does not wait for workers a minor version behind, and a worker moves only to a
// version of that plan, once the control plane runs it.
func TestCompute_WorkersFollowTheExtensionsWorkersSteps(t *testing.T) {
	in := Input{Target: "v1.39.1", Concurrency: 1,
		ControlPlane:       ControlPlane{Version: "v1.38.0", StatusVersion: "v1.38.0"},
		MachineDeployments: []Worker{{TopologyName: "md-0", Version: "v1.37.2"}},
		ControlPlaneSteps:  func(string) ([]string, string) { return []string{"v1.39.1"}, "" },
		WorkerSteps:        func(string) []string { return []string{"v1.39.1"} }}
	p := Compute(in)
	require.Equal(t, "v1.39.1", p.ControlPlaneVersion, "not held for md-0")
	require.Equal(t, "v1.37.2", p.MachineDeploymentVersions["md-0"])
	require.Equal(t, []string{"v1.39.1"}, p.WorkersUpgradePlan)

	in.WorkerSteps = nil
	p = Compute(in)
	require.Equal(t, "v1.38.0", p.ControlPlaneVersion, "Capstan's own plan holds the control plane for md-0")
	require.Equal(t, "v1.38.0", p.MachineDeploymentVersions["md-0"])

	in.ControlPlane = ControlPlane{Version: "v1.39.1", StatusVersion: "v1.39.1"}
	in.WorkerSteps = func(string) []string { return []string{"v1.39.1"} }
	require.Equal(t, "v1.39.1", Compute(in).MachineDeploymentVersions["md-0"])
}
