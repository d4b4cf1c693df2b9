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

// extensionPlans are a GenerateUpgradePlan extension's checked answers, by the control plane
// version each was asked from.
type extensionPlans struct {
	controlPlaneSteps, workerSteps map[string][]string
}

// controlPlane is upgrade.Input's ControlPlaneSteps: the answered steps from from.
func (p *extensionPlans) controlPlane(from string) ([]string, string) {
	return p.controlPlaneSteps[from], ""
}

// workers is upgrade.Input's WorkerSteps: the answered workersUpgrades with the control plane at
// cpFrom (none: Capstan computes the workers' plan).
func (p *extensionPlans) workers(cpFrom string) []string { return p.workerSteps[cpFrom] }

// extensionSteps asks the class's GenerateUpgradePlan handler for the control plane's steps from
// each version a plan may start at (its spec.version, and its status.version while it upgrades)
// to the target, and the workers' steps, and checks them as upstream does. nil when the class
// names no handler. A move that is not an upgrade (a downgrade, nothing to do) is not asked
// about: the default rules refuse or skip it. No controlPlaneUpgrades (also what failurePolicy
// Ignore gives) falls back to spec.kubernetesVersions, or one minor version at a time, and no
// workersUpgrades to the plan Capstan computes.
func extensionSteps(ctx context.Context, planner UpgradePlanner, c *clusterv1.Cluster, cc *clusterv1.ClusterClass,
	in upgrade.Input) (*extensionPlans, error) {
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
	plans := &extensionPlans{controlPlaneSteps: map[string][]string{}, workerSteps: map[string][]string{}}
	oldest := oldestWorker(in)
	for _, from := range []string{in.ControlPlane.Version, in.ControlPlane.StatusVersion} {
		v, err := contract.ParseKubernetesVersion(from)
		if _, asked := plans.controlPlaneSteps[from]; asked || err != nil || !v.LessThan(to) {
			continue
		}
		req := &hooksv1.GenerateUpgradePlanRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.GenerateUpgradePlan, "Request"), Cluster: HookCluster(c),
			FromControlPlaneKubernetesVersion: from, FromWorkersKubernetesVersion: oldest, ToKubernetesVersion: in.Target}
		resp, err := planner.GenerateUpgradePlan(ctx, handler, c.Namespace, req)
		if err != nil {
			return nil, fmt.Errorf("ClusterClass %s spec.upgrade.external.generateUpgradePlanExtension: %w", cc.Name, err)
		}
		steps, workers := versionsOf(resp.ControlPlaneUpgrades), versionsOf(resp.WorkersUpgrades)
		why := ""
		if len(steps) > 0 {
			why = upgrade.CheckSteps(from, in.Target, steps)
		}
		switch {
		case why != "" || len(workers) == 0:
		case len(steps) == 0:
			why = "workersUpgrades without controlPlaneUpgrades (the workers' steps must be among the control plane's)"
		default:
			why = upgrade.CheckWorkerSteps(from, oldest, in.Target, steps, workers)
		}
		if why != "" {
			return nil, fmt.Errorf("%s answered GenerateUpgradePlan from %s to %s with a plan Capstan cannot follow: %s: fix the Runtime Extension", handler, from, in.Target, why)
		}
		plans.controlPlaneSteps[from], plans.workerSteps[from] = steps, workers
	}
	return plans, nil
}

// versionsOf are the steps' versions, in order.
func versionsOf(steps []hooksv1.UpgradeStep) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Version)
	}
	return out
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
