package upgrade

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// ControlPlane is what was read of the control plane.
type ControlPlane struct {
	// Version is spec.version; empty when the control plane does not exist yet.
	Version string
	// StatusVersion is status.version, the oldest version its machines run; empty until reported.
	StatusVersion string
	// Provisioning: no status.version yet. Upgrading: status.version is older than spec.version.
	// Scaling: the replica counts do not all equal spec.replicas yet.
	Provisioning, Upgrading, Scaling bool
}

// Worker is what was read of one MachineDeployment or MachinePool topology entry.
type Worker struct {
	// TopologyName is the entry's name in spec.topology.workers.machineDeployments or machinePools.
	TopologyName string
	// Version is spec.template.spec.version; empty when the object does not exist yet.
	Version string
	// Upgrading: some Machine of the MachineDeployment, or some Node of the MachinePool, is not
	// at Version yet.
	Upgrading bool
	// Defer and Hold: the entry's metadata carries the defer-upgrade or hold-upgrade-sequence annotation.
	Defer, Hold bool
}

// Input is what the plan is computed from.
type Input struct {
	// Target is spec.topology.version.
	Target       string
	ControlPlane ControlPlane
	// MachineDeployments and MachinePools are in topology order.
	MachineDeployments []Worker
	MachinePools       []Worker
	// Concurrency is how many MachineDeployments, and separately how many MachinePools, may
	// upgrade at once (at least 1).
	Concurrency int
}

// Plan is the version each object gets now, and what is pending.
type Plan struct {
	ControlPlaneVersion string
	// MachineDeploymentVersions and MachinePoolVersions are keyed by topology name.
	MachineDeploymentVersions map[string]string
	MachinePoolVersions       map[string]string
	// Reason is the TopologyReconciled reason while something is pending or upgrading; empty
	// when every object is at spec.topology.version and settled.
	Reason string
	// Pending says, one entry per object, what is held or upgrading and why.
	Pending []string
}

// Message joins Pending into a condition message.
func (p *Plan) Message() string { return strings.Join(p.Pending, "; ") }

// Compute returns the plan for in.
func Compute(in Input) *Plan {
	p := &Plan{MachineDeploymentVersions: map[string]string{}, MachinePoolVersions: map[string]string{}}
	cp := in.ControlPlane
	var cpHeld, forWorkers bool
	switch {
	case cp.Version == "":
		p.ControlPlaneVersion = in.Target // created at the topology's version
	case cp.Version == in.Target:
		p.ControlPlaneVersion = cp.Version
		if cp.Upgrading {
			p.Pending = append(p.Pending, "Control plane upgrading to "+cp.Version)
		}
	default:
		p.ControlPlaneVersion = cp.Version
		var why string
		if why, forWorkers = controlPlaneHold(in); why != "" {
			cpHeld = true
			p.Pending = append(p.Pending, fmt.Sprintf("Control plane upgrade from %s to %s pending: %s", cp.Version, in.Target, why))
		} else {
			p.ControlPlaneVersion = in.Target
			p.Pending = append(p.Pending, "Control plane upgrading to "+in.Target)
		}
	}
	// A control plane that only waits for its workers is stable: they may move.
	cpWhy := controlPlaneNotStable(cp, cpHeld && !forWorkers, cp.Version != "" && p.ControlPlaneVersion != cp.Version)
	mds := planWorkers(in, p, "MachineDeployment", in.MachineDeployments, p.MachineDeploymentVersions, cpWhy)
	// MachinePools follow the MachineDeployments: they wait while one is still upgrading or
	// waiting for anything but its annotations.
	poolsWhy := cpWhy
	if poolsWhy == "" && len(mds.unfinished) > 0 {
		poolsWhy = "MachineDeployments upgrade first: " + strings.Join(mds.unfinished, ", ")
	}
	mps := planWorkers(in, p, "MachinePool", in.MachinePools, p.MachinePoolVersions, poolsWhy)
	switch {
	case cpHeld:
		p.Reason = clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason
	case mds.held:
		p.Reason = clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason
	case mps.held:
		p.Reason = clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason
	case mds.deferred:
		p.Reason = clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradeDeferredReason
	case mps.deferred:
		p.Reason = clusterv1.ClusterTopologyReconciledMachinePoolsUpgradeDeferredReason
	case len(p.Pending) > 0:
		p.Reason = clusterv1.ClusterTopologyReconciledClusterUpgradingReason
	}
	return p
}

// controlPlaneHold says why the control plane cannot move to the target now ("" when it can);
// forWorkers reports that it only waits for MachineDeployments or MachinePools, which may then
// still move.
func controlPlaneHold(in Input) (why string, forWorkers bool) {
	cp := in.ControlPlane
	if why := refusedMove(cp.Version, in.Target); why != "" {
		return why, false
	}
	switch {
	case cp.Provisioning:
		return "control plane is provisioning", false
	case cp.Upgrading:
		return "control plane is upgrading to " + cp.Version, false
	case cp.Scaling:
		return "control plane is scaling", false
	}
	for _, kind := range []struct {
		plural  string
		workers []Worker
	}{{"MachineDeployments", in.MachineDeployments}, {"MachinePools", in.MachinePools}} {
		var upgrading, behind []string
		for _, w := range kind.workers {
			switch {
			case w.Upgrading:
				upgrading = append(upgrading, w.TopologyName)
			case w.Version != "" && newerMinor(in.Target, cp.Version) && newerMinor(cp.Version, w.Version):
				behind = append(behind, w.TopologyName+" at "+w.Version)
			}
		}
		switch {
		case len(upgrading) > 0:
			return kind.plural + " upgrading: " + strings.Join(upgrading, ", "), true
		case len(behind) > 0:
			return fmt.Sprintf("%s a minor version behind the control plane must reach %s first (no two minor versions of skew): %s",
				kind.plural, cp.Version, strings.Join(behind, ", ")), true
		}
	}
	return "", false
}

// newerMinor reports whether a's minor version is newer than b's (false when either cannot be parsed).
func newerMinor(a, b string) bool {
	va, errA := contract.ParseKubernetesVersion(a)
	vb, errB := contract.ParseKubernetesVersion(b)
	if errA != nil || errB != nil {
		return false
	}
	return va.Major() > vb.Major() || (va.Major() == vb.Major() && va.Minor() > vb.Minor())
}

// refusedMove says why moving the control plane from current to target is refused, as
// upstream's Cluster webhook refuses it: a downgrade, or more than one minor version at once.
func refusedMove(current, target string) string {
	from, err := contract.ParseKubernetesVersion(current)
	if err != nil {
		return fmt.Sprintf("the control plane's spec.version %q is not a Kubernetes version: fix the control plane", current)
	}
	to, err := contract.ParseKubernetesVersion(target)
	if err != nil {
		return fmt.Sprintf("spec.topology.version %q is not a Kubernetes version", target)
	}
	switch {
	case to.LessThan(from):
		return fmt.Sprintf("spec.topology.version %s is older than the control plane's %s: downgrades are not supported, set spec.topology.version back to %s", target, current, current)
	case to.Major() != from.Major() || to.Minor() > from.Minor()+1:
		return fmt.Sprintf("spec.topology.version %s is more than one minor version ahead of the control plane's %s: upgrade one minor version at a time (v%d.%d.x first)",
			target, current, from.Major(), from.Minor()+1)
	}
	return ""
}

// controlPlaneNotStable says why workers must wait for the control plane ("" when it is
// upgraded and stable): held, moved in this plan, provisioning, upgrading or scaling.
func controlPlaneNotStable(cp ControlPlane, held, moved bool) string {
	switch {
	case cp.Version == "":
		return "control plane not created yet"
	case held:
		return "control plane upgrade pending"
	case moved || cp.Upgrading:
		return "control plane upgrading"
	case cp.Provisioning:
		return "control plane provisioning"
	case cp.Scaling:
		return "control plane scaling"
	}
	return ""
}

// workersPlan is what planning one kind of worker found: held entries wait for something other
// than the annotations, deferred ones for the annotations; unfinished lists the entries still
// upgrading or held (not deferred), which later kinds wait for.
type workersPlan struct {
	held, deferred bool
	unfinished     []string
}

// planWorkers gives each MachineDeployment or MachinePool (kind) its version in versions: a new
// one the version the control plane runs, an existing one the control plane's version once
// nothing makes it wait (waitWhy: the control plane not stable, or earlier workers) and the
// concurrency allows.
func planWorkers(in Input, p *Plan, kind string, workers []Worker, versions map[string]string, waitWhy string) workersPlan {
	var out workersPlan
	cp := in.ControlPlane
	running := cp.Version // what a new worker joins
	if cp.Version == "" {
		running = in.Target
	} else if cp.Upgrading && cp.StatusVersion != "" {
		running = cp.StatusVersion
	}
	upgrading := []string{}
	for _, w := range workers {
		if w.Upgrading {
			upgrading = append(upgrading, w.TopologyName)
		}
	}
	out.unfinished = append(out.unfinished, upgrading...)
	holdFrom := ""
	for _, w := range workers {
		if w.Hold && holdFrom == "" {
			holdFrom = w.TopologyName
		}
		if w.Version == "" {
			versions[w.TopologyName] = running
			continue
		}
		versions[w.TopologyName] = w.Version
		if !isNewer(in.Target, w.Version) {
			if w.Upgrading {
				p.Pending = append(p.Pending, fmt.Sprintf("%s %s upgrading to %s", kind, w.TopologyName, w.Version))
			}
			continue
		}
		annotationWhy := ""
		switch {
		case w.Defer:
			annotationWhy = clusterv1.ClusterTopologyDeferUpgradeAnnotation + " annotation set"
		case holdFrom != "":
			annotationWhy = clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation + " annotation set on " + holdFrom
		}
		why := annotationWhy
		if why == "" {
			why = workerWait(waitWhy, cp.Version, w.Version, upgrading, in.Concurrency)
		}
		if why != "" {
			if annotationWhy != "" {
				out.deferred = true
			} else {
				out.held = true
				if !w.Upgrading { // already listed
					out.unfinished = append(out.unfinished, w.TopologyName)
				}
			}
			p.Pending = append(p.Pending, fmt.Sprintf("%s %s upgrade to %s deferred: %s", kind, w.TopologyName, in.Target, why))
			continue
		}
		// Only ever to the control plane's version: workers never run ahead of it.
		versions[w.TopologyName] = cp.Version
		if !w.Upgrading { // already listed
			upgrading = append(upgrading, w.TopologyName)
			out.unfinished = append(out.unfinished, w.TopologyName)
		}
		p.Pending = append(p.Pending, fmt.Sprintf("%s %s upgrading to %s", kind, w.TopologyName, cp.Version))
	}
	return out
}

// workerWait says why a worker behind the target must still wait: waitWhy (the control plane is
// not stable, or earlier workers are upgrading), it is already at the control plane's version
// (waiting for the control plane to move), or the concurrency limit is reached ("" when it can go).
func workerWait(waitWhy, cpVersion, version string, upgrading []string, concurrency int) string {
	if waitWhy != "" {
		return waitWhy
	}
	if !isNewer(cpVersion, version) {
		return "control plane upgrade pending"
	}
	if concurrency < 1 {
		concurrency = 1
	}
	if len(upgrading) >= concurrency {
		return fmt.Sprintf("upgrade concurrency %d reached (upgrading: %s)", concurrency, strings.Join(upgrading, ", "))
	}
	return ""
}

// isNewer reports whether a is a newer version than b; versions that cannot be parsed count as
// newer when they differ, so a malformed version is replaced rather than kept.
func isNewer(a, b string) bool {
	va, errA := contract.ParseKubernetesVersion(a)
	vb, errB := contract.ParseKubernetesVersion(b)
	if errA != nil || errB != nil {
		return a != b
	}
	return vb.LessThan(va)
}

// Concurrency reads the upgrade-concurrency annotation from a Cluster's annotations: 1 when
// absent, an error naming the field when it is not an integer of at least 1.
func Concurrency(annotations map[string]string) (int, *field.Error) {
	v, ok := annotations[clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation]
	if !ok {
		return 1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, field.Invalid(field.NewPath("metadata", "annotations").Key(clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation), v,
			"must be an integer of at least 1 (how many MachineDeployments, and how many MachinePools, may upgrade at once)")
	}
	return n, nil
}
