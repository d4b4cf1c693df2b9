package upgrade

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"capstan.dev/contracts/contract"
)

// MaxWorkerSkew is how many minor versions workers may trail the control plane during an
// upgrade. Upstream allows the kubelet's three; Capstan's topology keeps one (no two minor
// versions of skew), so in a chained upgrade the workers follow the control plane minor by minor.
const MaxWorkerSkew = 1

// controlPlaneSteps returns the versions the control plane moves through from current to target,
// target last, or why the move is refused. Without listed versions (the ClusterClass's
// spec.kubernetesVersions) it is one step and at most one minor version; with them, target must be
// listed and every minor version between gets its newest listed patch, as upstream plans it.
func controlPlaneSteps(current, target string, listed []string) ([]string, string) {
	from, err := contract.ParseKubernetesVersion(current)
	if err != nil {
		return nil, fmt.Sprintf("the control plane's spec.version %q is not a Kubernetes version: fix the control plane", current)
	}
	to, err := contract.ParseKubernetesVersion(target)
	if err != nil {
		return nil, fmt.Sprintf("spec.topology.version %q is not a Kubernetes version", target)
	}
	switch {
	case to.LessThan(from):
		return nil, fmt.Sprintf("spec.topology.version %s is older than the control plane's %s: downgrades are not supported, set spec.topology.version back to %s", target, current, current)
	case to.Major() != from.Major():
		return nil, fmt.Sprintf("spec.topology.version %s changes the major version of the control plane's %s: not supported", target, current)
	}
	if len(listed) == 0 {
		if to.Minor() > from.Minor()+1 {
			return nil, fmt.Sprintf("spec.topology.version %s is more than one minor version ahead of the control plane's %s: upgrade one minor version at a time (v%d.%d.x first), or list the versions between in the ClusterClass's spec.kubernetesVersions",
				target, current, from.Major(), from.Minor()+1)
		}
		return []string{target}, ""
	}
	parsed := parseListed(listed)
	if !containsVersion(parsed, to) {
		return nil, fmt.Sprintf("spec.topology.version %s is not one of the ClusterClass's spec.kubernetesVersions (%s): use one of them, or add it to the class",
			target, strings.Join(listed, ", "))
	}
	var steps []string
	for minor := from.Minor() + 1; minor < to.Minor(); minor++ {
		newest := newestPatch(parsed, to.Major(), minor)
		if newest == "" {
			return nil, fmt.Sprintf("the ClusterClass's spec.kubernetesVersions lists no v%d.%d version between the control plane's %s and spec.topology.version %s: add one, the control plane upgrades one minor version at a time",
				to.Major(), minor, current, target)
		}
		steps = append(steps, newest)
	}
	return append(steps, target), ""
}

// CheckSteps checks a control plane's plan from current to target that an extension answered,
// as upstream checks GenerateUpgradePlan answers: every step newer than the one before (and than
// current), of the same major version, at most one minor version further, the target last. It
// returns what is wrong, or "".
func CheckSteps(current, target string, steps []string) string {
	if len(steps) == 0 {
		return fmt.Sprintf("no controlPlaneUpgrades from %s to %s", current, target)
	}
	prev, err := contract.ParseKubernetesVersion(current)
	if err != nil {
		return fmt.Sprintf("the control plane's version %q is not a Kubernetes version", current)
	}
	for i, s := range steps {
		v, err := contract.ParseKubernetesVersion(s)
		switch {
		case err != nil:
			return fmt.Sprintf("controlPlaneUpgrades[%d] %q is not a Kubernetes version", i, s)
		case !prev.LessThan(v):
			return fmt.Sprintf("controlPlaneUpgrades[%d] %s is not newer than %s", i, s, prev)
		case v.Major() != prev.Major() || v.Minor() > prev.Minor()+1:
			return fmt.Sprintf("controlPlaneUpgrades[%d] %s is more than one minor version after %s", i, s, prev)
		}
		prev = v
	}
	if to, err := contract.ParseKubernetesVersion(target); err != nil || !to.EqualTo(prev) {
		return fmt.Sprintf("the last of controlPlaneUpgrades is %s, not spec.topology.version %s", steps[len(steps)-1], target)
	}
	return ""
}

// IsListed reports whether v is one of listed (a ClusterClass's spec.kubernetesVersions),
// comparing versions, so that v1.37.2 and 1.37.2 are the same.
func IsListed(listed []string, v string) bool {
	parsed, err := contract.ParseKubernetesVersion(v)
	return err == nil && containsVersion(parseListed(listed), parsed)
}

type listedVersion struct {
	text string
	v    *version.Version
}

// parseListed parses the class's versions, skipping any that cannot be parsed (the schema
// refuses them).
func parseListed(listed []string) []listedVersion {
	var out []listedVersion
	for _, s := range listed {
		if v, err := contract.ParseKubernetesVersion(s); err == nil {
			out = append(out, listedVersion{s, v})
		}
	}
	return out
}

func containsVersion(listed []listedVersion, v *version.Version) bool {
	for _, l := range listed {
		if l.v.EqualTo(v) {
			return true
		}
	}
	return false
}

// newestPatch is the newest listed version of major.minor ("" when none is listed), as written
// in the class.
func newestPatch(listed []listedVersion, major, minor uint) string {
	var best *listedVersion
	for i, l := range listed {
		if l.v.Major() == major && l.v.Minor() == minor && (best == nil || best.v.LessThan(l.v)) {
			best = &listed[i]
		}
	}
	if best == nil {
		return ""
	}
	return best.text
}

// workerSteps returns the versions a worker at from moves through while the control plane, now at
// cpVersion, takes cpSteps (none when it is at the target): a control-plane version (its current
// one or a step) wherever the control plane's next move would leave the worker more than
// MaxWorkerSkew minor versions behind, and the target (the last version) at the end. Nil when
// from is not behind the target.
func workerSteps(from, cpVersion string, cpSteps []string) []string {
	path := append([]string{cpVersion}, cpSteps...)
	target := path[len(path)-1]
	cur, err := contract.ParseKubernetesVersion(from)
	if err != nil {
		return []string{target} // a version that cannot be parsed is replaced
	}
	var steps []string
	for i := 0; i+1 < len(path); i++ {
		here, errHere := contract.ParseKubernetesVersion(path[i])
		next, errNext := contract.ParseKubernetesVersion(path[i+1])
		if errHere != nil || errNext != nil {
			continue
		}
		if next.Minor() > cur.Minor()+MaxWorkerSkew && cur.LessThan(here) {
			steps = append(steps, path[i])
			cur = here
		}
	}
	if t, err := contract.ParseKubernetesVersion(target); err != nil || cur.LessThan(t) {
		steps = append(steps, target)
	}
	return steps
}

// MaxKubeletSkew is how many minor versions a GenerateUpgradePlan extension's workersUpgrades
// may leave workers behind the control plane, as upstream checks them: the kubelet's skew.
// Capstan's own plan keeps MaxWorkerSkew; an extension that answers workers' steps chose
// otherwise (while workers trail by more than one minor version, new Machines at their version
// fail the MachineSet preflight checks, as upstream's do).
const MaxKubeletSkew = 3

// CheckWorkerSteps checks the workers' plan (workersUpgrades) a GenerateUpgradePlan extension
// answered with the control plane at cpFrom taking cpSteps and the oldest worker at oldest, as
// upstream checks it: only versions the control plane runs or will run, each newer than the one
// before (and than oldest), at most MaxKubeletSkew minor versions further, the target last; and
// none when no worker is behind the target. It returns what is wrong, or "". An empty plan is
// fine: Capstan computes one.
func CheckWorkerSteps(cpFrom, oldest, target string, cpSteps, workers []string) string {
	if len(workers) == 0 {
		return ""
	}
	if oldest == "" || !isNewer(target, oldest) {
		return "workersUpgrades given, but no worker is behind spec.topology.version " + target
	}
	prev, err := contract.ParseKubernetesVersion(oldest)
	if err != nil {
		return fmt.Sprintf("the oldest worker's version %q is not a Kubernetes version", oldest)
	}
	known := append([]string{cpFrom}, cpSteps...)
	for i, s := range workers {
		v, err := contract.ParseKubernetesVersion(s)
		switch {
		case err != nil:
			return fmt.Sprintf("workersUpgrades[%d] %q is not a Kubernetes version", i, s)
		case !IsListed(known, s):
			return fmt.Sprintf("workersUpgrades[%d] %s is neither the control plane's version %s nor one of its steps (%s)", i, s, cpFrom, strings.Join(cpSteps, ", "))
		case !prev.LessThan(v):
			return fmt.Sprintf("workersUpgrades[%d] %s is not newer than %s", i, s, prev)
		case v.Major() != prev.Major() || v.Minor() > prev.Minor()+MaxKubeletSkew:
			return fmt.Sprintf("workersUpgrades[%d] %s is more than %d minor versions after %s: add a step between (Kubernetes version skew)", i, s, MaxKubeletSkew, prev)
		}
		prev = v
	}
	if to, err := contract.ParseKubernetesVersion(target); err != nil || !to.EqualTo(prev) {
		return fmt.Sprintf("the last of workersUpgrades is %s, not spec.topology.version %s", workers[len(workers)-1], target)
	}
	return ""
}
