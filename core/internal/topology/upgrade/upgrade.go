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
	// KubernetesVersions is the ClusterClass's spec.kubernetesVersions: when set, the target must
	// be one of them and the control plane may move several minor versions, one at a time.
	KubernetesVersions []string
	// ControlPlaneSteps, when set, gives the control plane's steps from a version to the target
	// (a GenerateUpgradePlan extension's answers) instead of KubernetesVersions; it returns why the
	// move is refused, or "". No steps and no reason: the default rules decide.
	ControlPlaneSteps func(from string) ([]string, string)
	// WorkerSteps, when set, gives the workers' plan a GenerateUpgradePlan extension answered
	// (workersUpgrades, checked by CheckWorkerSteps) with the control plane at cpFrom; none: the
	// workers' steps are computed (workerSteps).
	WorkerSteps func(cpFrom string) []string
	// Hooks are what Runtime SDK lifecycle hooks hold now (the topology controller asks them).
	Hooks HookHolds
}

// steps are the control plane's steps from from to the target.
func (in Input) steps(from string) ([]string, string) {
	if in.ControlPlaneSteps != nil {
		if steps, why := in.ControlPlaneSteps(from); len(steps) > 0 || why != "" {
			return steps, why
		}
	}
	return controlPlaneSteps(from, in.Target, in.KubernetesVersions)
}

// workerSteps are the versions a worker at from moves through while the control plane, at
// cpVersion, takes cpSteps: the extension's plan, from the first of its versions newer than from,
// or else the computed one (workerSteps).
func (in Input) workerSteps(from, cpVersion string, cpSteps []string) []string {
	if plan := in.extensionWorkerPlan(cpVersion); len(plan) > 0 {
		for i, v := range plan {
			if isNewer(v, from) {
				return plan[i:]
			}
		}
		return nil
	}
	return workerSteps(from, cpVersion, cpSteps)
}

// extensionWorkerPlan is the workers' plan an extension answered with the control plane at
// cpVersion; empty when the workers follow Capstan's own.
func (in Input) extensionWorkerPlan(cpVersion string) []string {
	if in.WorkerSteps == nil {
		return nil
	}
	return in.WorkerSteps(cpVersion)
}

// HookHolds say, each with a message naming the hook ("" when nothing holds), what lifecycle
// hooks hold: ControlPlane the control plane's next step, Workers every MachineDeployment and
// MachinePool picking up a version, Create the creation of new ones.
type HookHolds struct {
	ControlPlane, Workers, Create string
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
	// ControlPlaneUpgradePlan is what the control plane still has to run, in order: the version
	// it is upgrading to, then each later step, the target last. WorkersUpgradePlan is the same
	// for the workers furthest behind. Both are empty when nothing is left (or the move is refused).
	ControlPlaneUpgradePlan, WorkersUpgradePlan []string
	// ControlPlanePending: the control plane's upgrade waits. MachineDeploymentsPending and
	// MachinePoolsPending name (by topology name) the workers whose upgrade waits. As upstream,
	// no other change is pushed to them meanwhile, so that it lands with the version in one
	// rollout instead of two.
	ControlPlanePending                            bool
	MachineDeploymentsPending, MachinePoolsPending map[string]bool
	// MachineDeploymentsCreatePending and MachinePoolsCreatePending name the new workers whose
	// creation waits until the control plane is stable (upstream's pending create): created
	// meanwhile, they would join at the old version and roll out a second time.
	MachineDeploymentsCreatePending, MachinePoolsCreatePending map[string]bool
}

// Message joins Pending into a condition message.
func (p *Plan) Message() string { return strings.Join(p.Pending, "; ") }

// Compute returns the plan for in.
func Compute(in Input) *Plan {
	p := &Plan{MachineDeploymentVersions: map[string]string{}, MachinePoolVersions: map[string]string{}}
	cp := in.ControlPlane
	var cpHeld, forWorkers bool
	var cpSteps []string // the control plane's steps from its spec.version to the target
	remaining := remainingSteps(in)
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
		cpSteps, why = in.steps(cp.Version)
		// A step of a chained upgrade under way: the first of the steps from the version it runs.
		if why == "" && cp.Upgrading && len(remaining.steps) > 1 && remaining.steps[0] == cp.Version {
			p.Pending = append(p.Pending, "Control plane upgrading to "+cp.Version+then(cpSteps))
			break
		}
		if why == "" {
			why, forWorkers = controlPlaneHold(in, cpSteps)
		}
		if why == "" {
			why = in.Hooks.ControlPlane
		}
		if why != "" {
			cpHeld = true
			p.Pending = append(p.Pending, fmt.Sprintf("Control plane upgrade from %s to %s%s pending: %s", cp.Version, in.Target, through(cpSteps), why))
		} else {
			p.ControlPlaneVersion = cpSteps[0]
			p.Pending = append(p.Pending, "Control plane upgrading to "+cpSteps[0]+then(cpSteps[1:]))
		}
	}
	// A control plane that only waits for its workers is stable: they may move.
	cpWhy := controlPlaneNotStable(cp, cpHeld && !forWorkers, cp.Version != "" && p.ControlPlaneVersion != cp.Version)
	createWhy := createWait(cp, cpHeld, cp.Version != "" && p.ControlPlaneVersion != cp.Version)
	// The hooks' holds come after the control plane's: while it is not stable, that is the reason.
	if cpWhy == "" {
		cpWhy = in.Hooks.Workers
	}
	if createWhy == "" && cp.Version != "" {
		createWhy = in.Hooks.Create
	}
	mds := planWorkers(in, p, "MachineDeployment", in.MachineDeployments, p.MachineDeploymentVersions, cpSteps, cpWhy, createWhy)
	// MachinePools follow the MachineDeployments: they wait while one is still upgrading or
	// waiting for anything but its annotations.
	poolsWhy := cpWhy
	if poolsWhy == "" && len(mds.unfinished) > 0 {
		poolsWhy = "MachineDeployments upgrade first: " + strings.Join(mds.unfinished, ", ")
	}
	mps := planWorkers(in, p, "MachinePool", in.MachinePools, p.MachinePoolVersions, cpSteps, poolsWhy, createWhy)
	p.Reason = reason(p, cpHeld, mds, mps)
	p.ControlPlanePending, p.MachineDeploymentsPending, p.MachinePoolsPending = cpHeld, mds.pending, mps.pending
	p.MachineDeploymentsCreatePending, p.MachinePoolsCreatePending = mds.createPending, mps.createPending
	p.ControlPlaneUpgradePlan, p.WorkersUpgradePlan = upgradePlans(in, remaining)
	return p
}

// stepsFromRunning are the control plane's steps from the version it runs (status.version while
// it upgrades, else spec.version) to the target; refused when that move is.
type stepsFromRunning struct {
	running string
	steps   []string
	refused bool
}

// remainingSteps computes the control plane's steps from the version it runs; none when it does
// not exist yet or runs the target.
func remainingSteps(in Input) stepsFromRunning {
	cp := in.ControlPlane
	out := stepsFromRunning{running: cp.Version}
	if cp.StatusVersion != "" && isNewer(cp.Version, cp.StatusVersion) {
		out.running = cp.StatusVersion
	}
	if cp.Version != "" && out.running != in.Target {
		var why string
		out.steps, why = in.steps(out.running)
		out.refused = why != ""
	}
	return out
}

// reason is the TopologyReconciled reason of the plan: the first of a held control plane, held
// MachineDeployments or MachinePools, deferred ones, or anything upgrading ("" when settled).
func reason(p *Plan, cpHeld bool, mds, mps workersPlan) string {
	switch {
	case cpHeld:
		return clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason
	case mds.held:
		return clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason
	case mps.held:
		return clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason
	case mds.deferred:
		return clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradeDeferredReason
	case mps.deferred:
		return clusterv1.ClusterTopologyReconciledMachinePoolsUpgradeDeferredReason
	case len(p.Pending) > 0:
		return clusterv1.ClusterTopologyReconciledClusterUpgradingReason
	}
	return ""
}

// through names the intermediate steps of a chained upgrade (" through v1.36.2, v1.37.1"), if any.
func through(steps []string) string {
	if len(steps) < 2 {
		return ""
	}
	return " through " + strings.Join(steps[:len(steps)-1], ", ")
}

// then names the steps after the current one (", then v1.37.1"), if any.
func then(rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	return ", then " + strings.Join(rest, ", ")
}

// upgradePlans are the control plane's and the workers' remaining versions: the control plane's
// steps from the version it runs, and the workers' from the oldest worker's version; empty when
// the control plane does not exist or the move is refused.
func upgradePlans(in Input, remaining stepsFromRunning) (controlPlane, workers []string) {
	if in.ControlPlane.Version == "" || remaining.refused {
		return nil, nil
	}
	oldest := ""
	for _, w := range append(append([]Worker{}, in.MachineDeployments...), in.MachinePools...) {
		if w.Version != "" && (oldest == "" || isNewer(oldest, w.Version)) {
			oldest = w.Version
		}
	}
	if oldest != "" {
		workers = in.workerSteps(oldest, remaining.running, remaining.steps)
	}
	return remaining.steps, workers
}

// controlPlaneHold says why the control plane cannot take its next step (of steps) now ("" when
// it can); forWorkers reports that it only waits for MachineDeployments or MachinePools, which
// may then still move.
func controlPlaneHold(in Input, steps []string) (why string, forWorkers bool) {
	cp := in.ControlPlane
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
			case w.Version != "" && in.catchUpFirst(w.Version, cp.Version, steps):
				behind = append(behind, w.TopologyName+" at "+w.Version)
			}
		}
		switch {
		case len(upgrading) > 0:
			return kind.plural + " upgrading: " + strings.Join(upgrading, ", "), true
		case len(behind) > 0 && len(in.extensionWorkerPlan(cp.Version)) > 0:
			return fmt.Sprintf("%s must reach %s first (a step of the workers' upgrade plan the GenerateUpgradePlan extension answered): %s",
				kind.plural, cp.Version, strings.Join(behind, ", ")), true
		case len(behind) > 0:
			return fmt.Sprintf("%s a minor version behind the control plane must reach %s first (no two minor versions of skew): %s",
				kind.plural, cp.Version, strings.Join(behind, ", ")), true
		}
	}
	return "", false
}

// catchUpFirst reports whether a worker at version must move to the control plane's current
// version before the control plane takes its next step.
func (in Input) catchUpFirst(version, cpVersion string, cpSteps []string) bool {
	steps := in.workerSteps(version, cpVersion, cpSteps)
	return len(steps) > 0 && !isNewer(steps[0], cpVersion)
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

// createWait says why a new worker is not created yet ("" when it can be), as upstream's pending
// create: while the control plane exists and is not stable (see controlPlaneNotStable), also when
// its upgrade only waits for the workers. Created meanwhile, a worker would join at a version the
// control plane is leaving, or ahead of the one it runs, and roll out again.
func createWait(cp ControlPlane, held, moved bool) string {
	if cp.Version == "" {
		return "" // a new Cluster: created with the control plane, at the topology's version
	}
	return controlPlaneNotStable(cp, held, moved)
}

// workersPlan is what planning one kind of worker found: held entries wait for something other
// than the annotations, deferred ones for the annotations; unfinished lists the entries still
// upgrading or held (not deferred), which later kinds wait for; createPending the new entries
// not created yet.
type workersPlan struct {
	held, deferred bool
	unfinished     []string
	pending        map[string]bool // held or deferred
	createPending  map[string]bool
}

// planWorkers gives each MachineDeployment or MachinePool (kind) its version in versions: a new
// one the topology's version, created once nothing makes it wait (createWhy), an existing one its
// next step (the control plane's version, see workerSteps; cpSteps are the control plane's steps
// still ahead) once nothing makes it wait (waitWhy: the control plane not stable, or earlier
// workers) and the concurrency allows.
func planWorkers(in Input, p *Plan, kind string, workers []Worker, versions map[string]string, cpSteps []string, waitWhy, createWhy string) workersPlan {
	var out workersPlan
	cp := in.ControlPlane
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
			// Created when the control plane is stable, i.e. at the target (as upstream).
			versions[w.TopologyName] = in.Target
			if createWhy != "" {
				if out.createPending == nil {
					out.createPending = map[string]bool{}
				}
				out.createPending[w.TopologyName] = true
				p.Pending = append(p.Pending, fmt.Sprintf("%s %s creation deferred: %s", kind, w.TopologyName, createWhy))
			}
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
			why = workerWait(waitWhy, cp.Version, in.nextStep(w.Version, cp.Version, cpSteps), upgrading, in.Concurrency)
		}
		if why != "" {
			if out.pending == nil {
				out.pending = map[string]bool{}
			}
			out.pending[w.TopologyName] = true
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

// nextStep is the first of a worker's steps (see workerSteps), "" when it has none.
func (in Input) nextStep(version, cpVersion string, cpSteps []string) string {
	if steps := in.workerSteps(version, cpVersion, cpSteps); len(steps) > 0 {
		return steps[0]
	}
	return ""
}

// workerWait says why a worker behind the target must still wait: waitWhy (the control plane is
// not stable, or earlier workers are upgrading), its next step is not the control plane's
// current version (waiting for the control plane to move), or the concurrency limit is reached
// ("" when it can go).
func workerWait(waitWhy, cpVersion, next string, upgrading []string, concurrency int) string {
	if waitWhy != "" {
		return waitWhy
	}
	if next == "" || isNewer(next, cpVersion) {
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
