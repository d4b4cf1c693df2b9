package topology

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/desired"
	"capstan.dev/core/internal/topology/upgrade"
)

// planUpgrade reads what upgrade orchestration decides on (the control plane's versions and
// replica counts, each MachineDeployment's Machines, each MachinePool's Node counts) and computes
// the version of every object.
// An invalid upgrade-concurrency annotation blocks the reconcile with the field path.
func (r *Reconciler) planUpgrade(ctx context.Context, s *scope, v contract.ContractVersion) error {
	c := s.cluster
	concurrency, ferr := upgrade.Concurrency(c.Annotations)
	if ferr != nil {
		s.blocked = &blockedReason{clusterv1.ClusterTopologyReconciledFailedReason, ferr.Error() + ": fix or remove the annotation"}
		return nil
	}
	cp, err := controlPlaneState(s.current.ControlPlane, v)
	if err != nil {
		return err
	}
	in := upgrade.Input{Target: c.Spec.Topology.Version, ControlPlane: cp, Concurrency: concurrency}
	if s.class != nil {
		in.KubernetesVersions = s.class.Spec.KubernetesVersions
	}
	for _, mdt := range c.Spec.Topology.Workers.MachineDeployments {
		md, err := r.machineDeploymentState(ctx, s.current.MachineDeployments[mdt.Name])
		if err != nil {
			return err
		}
		md.TopologyName = mdt.Name
		_, md.Defer = mdt.Metadata.Annotations[clusterv1.ClusterTopologyDeferUpgradeAnnotation]
		_, md.Hold = mdt.Metadata.Annotations[clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation]
		in.MachineDeployments = append(in.MachineDeployments, md)
	}
	for _, mpt := range c.Spec.Topology.Workers.MachinePools {
		mp := machinePoolState(s.current.MachinePools[mpt.Name])
		mp.TopologyName = mpt.Name
		_, mp.Defer = mpt.Metadata.Annotations[clusterv1.ClusterTopologyDeferUpgradeAnnotation]
		_, mp.Hold = mpt.Metadata.Annotations[clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation]
		in.MachinePools = append(in.MachinePools, mp)
	}
	s.upgrade = upgrade.Compute(in)
	return nil
}

// versions are the plan's versions in the shape desired.Compute takes.
func (s *scope) versions() desired.Versions {
	if s.upgrade == nil {
		return desired.Versions{}
	}
	return desired.Versions{ControlPlane: s.upgrade.ControlPlaneVersion, MachineDeployments: s.upgrade.MachineDeploymentVersions,
		MachinePools: s.upgrade.MachinePoolVersions}
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
func (r *Reconciler) machineDeploymentState(ctx context.Context, md *clusterv1.MachineDeployment) (upgrade.Worker, error) {
	var out upgrade.Worker
	if md == nil {
		return out, nil
	}
	out.Version = md.Spec.Template.Spec.Version
	if out.Version == "" || len(md.Spec.Selector.MatchLabels) == 0 {
		return out, nil
	}
	machines := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, machines, client.InNamespace(md.Namespace), client.MatchingLabels(md.Spec.Selector.MatchLabels)); err != nil {
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
