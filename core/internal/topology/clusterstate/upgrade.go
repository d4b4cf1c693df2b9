package clusterstate

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/desired"
	"capstan.dev/core/internal/topology/upgrade"
)

// PlanUpgrade reads what upgrade orchestration decides on (the control plane's versions and
// replica counts, each MachineDeployment's Machines, each MachinePool's Node counts, the class's
// kubernetesVersions) and computes the version of every object of c. An invalid
// upgrade-concurrency annotation is returned as a field error: nothing can be planned until it is
// fixed.
func PlanUpgrade(ctx context.Context, r client.Reader, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, cur *Current) (*upgrade.Plan, *field.Error, error) {
	return PlanUpgradeWith(ctx, r, nil, c, cc, cur)
}

// PlanUpgradeWith is PlanUpgrade asking the class's GenerateUpgradePlan handler, if it names one,
// through planner for the control plane's steps.
func PlanUpgradeWith(ctx context.Context, r client.Reader, planner UpgradePlanner, c *clusterv1.Cluster, cc *clusterv1.ClusterClass,
	cur *Current) (*upgrade.Plan, *field.Error, error) {
	in, ferr, err := ReadUpgradeInputWith(ctx, r, planner, c, cc, cur)
	if ferr != nil || err != nil {
		return nil, ferr, err
	}
	return upgrade.Compute(in), nil, nil
}

// ReadUpgradeInput reads what PlanUpgrade computes the plan from; the topology controller keeps
// it to recompute the plan with the holds of lifecycle hooks.
func ReadUpgradeInput(ctx context.Context, r client.Reader, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, cur *Current) (upgrade.Input, *field.Error, error) {
	return ReadUpgradeInputWith(ctx, r, nil, c, cc, cur)
}

// ReadUpgradeInputWith is ReadUpgradeInput with the control plane's steps from the class's
// GenerateUpgradePlan handler, if it names one, asked through planner.
func ReadUpgradeInputWith(ctx context.Context, r client.Reader, planner UpgradePlanner, c *clusterv1.Cluster, cc *clusterv1.ClusterClass,
	cur *Current) (upgrade.Input, *field.Error, error) {
	concurrency, ferr := upgrade.Concurrency(c.Annotations)
	if ferr != nil {
		return upgrade.Input{}, ferr, nil
	}
	cp, err := controlPlaneState(cur.ControlPlane, cur.ControlPlaneContract)
	if err != nil {
		return upgrade.Input{}, nil, err
	}
	in := upgrade.Input{Target: c.Spec.Topology.Version, ControlPlane: cp, Concurrency: concurrency, KubernetesVersions: cc.Spec.KubernetesVersions}
	for _, mdt := range c.Spec.Topology.Workers.MachineDeployments {
		md, err := machineDeploymentState(ctx, r, cur.MachineDeployments[mdt.Name])
		if err != nil {
			return upgrade.Input{}, nil, err
		}
		md.TopologyName = mdt.Name
		_, md.Defer = mdt.Metadata.Annotations[clusterv1.ClusterTopologyDeferUpgradeAnnotation]
		_, md.Hold = mdt.Metadata.Annotations[clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation]
		in.MachineDeployments = append(in.MachineDeployments, md)
	}
	for _, mpt := range c.Spec.Topology.Workers.MachinePools {
		mp := machinePoolState(cur.MachinePools[mpt.Name])
		mp.TopologyName = mpt.Name
		_, mp.Defer = mpt.Metadata.Annotations[clusterv1.ClusterTopologyDeferUpgradeAnnotation]
		_, mp.Hold = mpt.Metadata.Annotations[clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation]
		in.MachinePools = append(in.MachinePools, mp)
	}
	plans, err := extensionSteps(ctx, planner, c, cc, in)
	if err != nil {
		return upgrade.Input{}, nil, err
	}
	if plans != nil {
		in.ControlPlaneSteps, in.WorkerSteps = plans.controlPlane, plans.workers
	}
	return in, nil, nil
}

// Versions are the plan's versions in the shape desired.Compute takes (none for a nil plan:
// every object at spec.topology.version).
func Versions(p *upgrade.Plan) desired.Versions {
	if p == nil {
		return desired.Versions{}
	}
	return desired.Versions{ControlPlane: p.ControlPlaneVersion, MachineDeployments: p.MachineDeploymentVersions,
		MachinePools: p.MachinePoolVersions}
}

// controlPlaneState reads the control plane's versions and whether it is provisioning,
// upgrading or scaling, through the contract; nil (not created yet) is the zero state.
func controlPlaneState(obj *unstructured.Unstructured, v contract.ContractVersion) (upgrade.ControlPlane, error) {
	var out upgrade.ControlPlane
	if obj == nil {
		return out, nil
	}
	cp := contract.ControlPlane()
	fail := func(err error) (upgrade.ControlPlane, error) {
		return upgrade.ControlPlane{}, fmt.Errorf("reading the state of ControlPlane %s: %w", obj.GetName(), err)
	}
	spec, err := cp.Version().Get(obj)
	switch {
	case errors.Is(err, contract.ErrFieldNotFound):
		return out, nil // a control plane without a version: the plan sets one
	case err != nil:
		return fail(err)
	}
	out.Version = *spec
	if status, err := cp.StatusVersion().Get(obj); err == nil {
		out.StatusVersion = *status
	} else if !errors.Is(err, contract.ErrFieldNotFound) {
		return fail(err)
	}
	if out.Provisioning, err = cp.IsProvisioning(obj); err != nil {
		return fail(err)
	}
	if out.Upgrading, err = cp.IsUpgrading(obj); err != nil {
		return fail(err)
	}
	if out.Scaling, err = cp.IsScaling(obj, v); err != nil {
		return fail(err)
	}
	return out, nil
}

// machineDeploymentState reads an existing MachineDeployment's version and, as upstream, counts
// it as upgrading while any of its Machines (by its selector) runs another version. nil (not
// created yet) is the zero state.
func machineDeploymentState(ctx context.Context, r client.Reader, md *clusterv1.MachineDeployment) (upgrade.Worker, error) {
	var out upgrade.Worker
	if md == nil {
		return out, nil
	}
	out.Version = md.Spec.Template.Spec.Version
	if out.Version == "" || len(md.Spec.Selector.MatchLabels) == 0 {
		return out, nil
	}
	machines := &clusterv1.MachineList{}
	if err := r.List(ctx, machines, client.InNamespace(md.Namespace), client.MatchingLabels(md.Spec.Selector.MatchLabels)); err != nil {
		return out, fmt.Errorf("listing the Machines of MachineDeployment %s: %w", md.Name, err)
	}
	for i := range machines.Items {
		if machines.Items[i].Spec.Version != out.Version {
			out.Upgrading = true
			break
		}
	}
	return out, nil
}

// machinePoolState reads an existing MachinePool's version and counts it as upgrading while any
// of its Nodes runs another kubelet version (upstream reads the Nodes; here the MachinePool
// controller's count of them, status.upToDateReplicas, is used, once it has seen the pool's
// current spec). nil (not created yet) is the zero state.
func machinePoolState(mp *clusterv1.MachinePool) upgrade.Worker {
	var out upgrade.Worker
	if mp == nil {
		return out
	}
	out.Version = mp.Spec.Template.Spec.Version
	nodes := int32(len(mp.Status.NodeRefs))
	if out.Version == "" || nodes == 0 {
		return out
	}
	out.Upgrading = mp.Status.ObservedGeneration < mp.Generation || ptr.Deref(mp.Status.UpToDateReplicas, 0) < nodes
	return out
}

// Held tells which existing objects get no change while their upgrade is pending (as upstream,
// so that a change made meanwhile lands with the new version in one rollout instead of two);
// their health checks still do. It also tells which new workers are not created yet. The zero
// value holds nothing.
type Held struct {
	plan *upgrade.Plan
	cur  *Current
}

// NewHeld is what plan holds among cur's objects.
func NewHeld(plan *upgrade.Plan, cur *Current) Held { return Held{plan, cur} }

// ControlPlane reports whether the ControlPlane and its machine template copy are held.
func (h Held) ControlPlane() bool {
	return h.plan != nil && h.cur.ControlPlane != nil && h.plan.ControlPlanePending
}

// MachineDeployment reports whether the MachineDeployment of a topology entry and its template
// copies are held.
func (h Held) MachineDeployment(topologyName string) bool {
	return h.plan != nil && h.cur.MachineDeployments[topologyName] != nil && h.plan.MachineDeploymentsPending[topologyName]
}

// MachinePool reports whether the MachinePool of a topology entry and its BootstrapConfig and
// InfraMachinePool are held.
func (h Held) MachinePool(topologyName string) bool {
	return h.plan != nil && h.cur.MachinePools[topologyName] != nil && h.plan.MachinePoolsPending[topologyName]
}

// MachineDeploymentCreateDeferred reports whether the MachineDeployment of a topology entry does not
// exist and is not created yet, nor its template copies and health check (pending create).
func (h Held) MachineDeploymentCreateDeferred(topologyName string) bool {
	return h.plan != nil && h.cur.MachineDeployments[topologyName] == nil && h.plan.MachineDeploymentsCreatePending[topologyName]
}

// MachinePoolCreateDeferred reports whether the MachinePool of a topology entry does not exist and
// is not created yet, nor its BootstrapConfig and InfraMachinePool (pending create).
func (h Held) MachinePoolCreateDeferred(topologyName string) bool {
	return h.plan != nil && h.cur.MachinePools[topologyName] == nil && h.plan.MachinePoolsCreatePending[topologyName]
}
