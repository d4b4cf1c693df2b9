package clusterstate

import (
	"context"
	"fmt"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/conversion"
	"capstan.dev/core/internal/topology/upgrade"
)

// UpgradePlanner calls a ClusterClass's GenerateUpgradePlan handler (the Runtime SDK client).
type UpgradePlanner interface {
	GenerateUpgradePlan(ctx context.Context, handler, namespace string, req *hooksv1.GenerateUpgradePlanRequest) (*hooksv1.GenerateUpgradePlanResponse, error)
}

// extensionSteps asks the class's GenerateUpgradePlan handler for the control plane's steps from
// each version a plan may start at (its spec.version, and its status.version while it upgrades)
// to the target, checks them, and returns them as upgrade.Input's ControlPlaneSteps. nil when
// the class names no handler. A move that is not an upgrade (a downgrade, nothing to do) is not
// asked about: the default rules refuse or skip it. An empty answer (also what failurePolicy
// Ignore gives) falls back to spec.kubernetesVersions, or one minor version at a time.
func extensionSteps(ctx context.Context, planner UpgradePlanner, c *clusterv1.Cluster, cc *clusterv1.ClusterClass,
	in upgrade.Input) (func(string) ([]string, string), error) {
	handler := cc.Spec.Upgrade.External.GenerateUpgradePlanExtension
	if handler == "" {
		return nil, nil
	}
	if planner == nil {
		return nil, fmt.Errorf("ClusterClass %s spec.upgrade.external.generateUpgradePlanExtension names %s, and nothing here can call Runtime Extensions", cc.Name, handler)
	}
	to, err := contract.ParseKubernetesVersion(in.Target)
	if err != nil {
		return nil, nil // the default rules say what is wrong with it
	}
	answers := map[string][]string{}
	for _, from := range []string{in.ControlPlane.Version, in.ControlPlane.StatusVersion} {
		v, err := contract.ParseKubernetesVersion(from)
		if _, asked := answers[from]; asked || err != nil || !v.LessThan(to) {
			continue
		}
		req := &hooksv1.GenerateUpgradePlanRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.GenerateUpgradePlan, "Request"), Cluster: HookCluster(c),
			FromControlPlaneKubernetesVersion: from, FromWorkersKubernetesVersion: oldestWorker(in), ToKubernetesVersion: in.Target}
		resp, err := planner.GenerateUpgradePlan(ctx, handler, c.Namespace, req)
		if err != nil {
			return nil, fmt.Errorf("ClusterClass %s spec.upgrade.external.generateUpgradePlanExtension: %w", cc.Name, err)
		}
		var steps []string
		for _, s := range resp.ControlPlaneUpgrades {
			steps = append(steps, s.Version)
		}
		if len(steps) > 0 {
			if why := upgrade.CheckSteps(from, in.Target, steps); why != "" {
				return nil, fmt.Errorf("%s answered GenerateUpgradePlan from %s to %s with a plan Capstan cannot follow: %s: fix the Runtime Extension", handler, from, in.Target, why)
			}
		}
		answers[from] = steps
	}
	return func(from string) ([]string, string) { return answers[from], "" }, nil
}

// oldestWorker is the oldest version a MachineDeployment or MachinePool runs ("" without any).
func oldestWorker(in upgrade.Input) string {
	oldest := ""
	for _, w := range append(append([]upgrade.Worker(nil), in.MachineDeployments...), in.MachinePools...) {
		v, err := contract.ParseKubernetesVersion(w.Version)
		if err != nil {
			continue
		}
		if o, err := contract.ParseKubernetesVersion(oldest); err != nil || v.LessThan(o) {
			oldest = w.Version
		}
	}
	return oldest
}

// HookCluster is the Cluster as Runtime Extension requests carry it: without status, managed
// fields and the annotations that are bookkeeping (upstream's cleanupCluster).
func HookCluster(c *clusterv1.Cluster) clusterv1.Cluster {
	out := *c.DeepCopy()
	out.Status = clusterv1.ClusterStatus{}
	out.ManagedFields = nil
	delete(out.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
	delete(out.Annotations, conversion.DataAnnotation)
	out.APIVersion, out.Kind = clusterv1.GroupVersion.String(), "Cluster"
	return out
}
