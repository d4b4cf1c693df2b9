package desired

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
)

// computeMachineDeployment generates one topology entry's MachineDeployment and the copies of its
// class's bootstrap and infrastructure templates; topology values replace the class's.
func computeMachineDeployment(in *Input, tpls *Templates, mdt clusterv1.MachineDeploymentTopology, names CurrentWorker) (*MachineDeploymentState, error) {
	c := in.Cluster
	class := findMachineDeploymentClass(in.Class, mdt.Class)
	if class == nil {
		return nil, fmt.Errorf("spec.topology.workers.machineDeployments[%s].class: ClusterClass %s has no MachineDeployment class %q", mdt.Name, in.Class.Name, mdt.Class)
	}
	name := names.Name
	mdLabel := map[string]string{clusterv1.ClusterTopologyMachineDeploymentNameLabel: mdt.Name}
	t := tpls.MachineDeployments[mdt.Name]
	out := &MachineDeploymentState{TopologyName: mdt.Name}
	out.Bootstrap = templateCopy(t.Bootstrap, c, names.BootstrapName, mdLabel)
	out.Infrastructure = templateCopy(t.Infrastructure, c, names.InfrastructureName, mdLabel)

	labels, annotations := machineDeploymentMetadata(c.Name, class, &mdt)
	selector := topologyLabels(mdLabel, c.Name)
	md := &clusterv1.MachineDeployment{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineDeployment"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: c.Namespace, Name: name,
			Labels:          labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{owner.ClusterReference(c)},
		},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: c.Name,
			Replicas:    mdt.Replicas,
			Selector:    clusterv1.LabelSelector{MatchLabels: selector},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: labels, Annotations: annotations},
				Spec:       machineSpec(c, class, &mdt, out, in.Versions.ForMachineDeployment(c, mdt.Name)),
			},
			Rollout:  rollout(class, &mdt),
			Deletion: clusterv1.MachineDeploymentDeletionSpec{Order: firstSet(mdt.Deletion.Order, class.Deletion.Order)},
		},
	}
	if len(annotations) == 0 {
		md.Spec.Template.Annotations = nil
	}
	out.HealthCheck, md.Spec.Remediation.MaxInFlight = machineDeploymentHealthCheck(in, class, &mdt, name)
	out.Object = md
	return out, nil
}

// machineDeploymentMetadata is the labels and annotations of a topology entry's MachineDeployment
// (and of its Machines): the class's and the entry's metadata merged, and the topology's marks.
func machineDeploymentMetadata(clusterName string, class *clusterv1.MachineDeploymentClass, mdt *clusterv1.MachineDeploymentTopology) (labels, annotations map[string]string) {
	labels, annotations = mergeMetadata(class.Metadata, mdt.Metadata)
	mdLabel := map[string]string{clusterv1.ClusterTopologyMachineDeploymentNameLabel: mdt.Name}
	return mergeInto(labels, topologyLabels(mdLabel, clusterName)), annotations
}

// machineSpec is the MachineDeployment's machine template spec.
func machineSpec(c *clusterv1.Cluster, class *clusterv1.MachineDeploymentClass, mdt *clusterv1.MachineDeploymentTopology, s *MachineDeploymentState, version string) clusterv1.MachineSpec {
	deletion := clusterv1.MachineDeletionSpec{
		NodeDrainTimeoutSeconds:        class.Deletion.NodeDrainTimeoutSeconds,
		NodeVolumeDetachTimeoutSeconds: class.Deletion.NodeVolumeDetachTimeoutSeconds,
		NodeDeletionTimeoutSeconds:     class.Deletion.NodeDeletionTimeoutSeconds,
	}
	overrideTimeouts(&deletion, clusterv1.MachineDeletionSpec{
		NodeDrainTimeoutSeconds:        mdt.Deletion.NodeDrainTimeoutSeconds,
		NodeVolumeDetachTimeoutSeconds: mdt.Deletion.NodeVolumeDetachTimeoutSeconds,
		NodeDeletionTimeoutSeconds:     mdt.Deletion.NodeDeletionTimeoutSeconds,
	})
	spec := clusterv1.MachineSpec{
		ClusterName:       c.Name,
		Version:           version,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: refTo(s.Bootstrap)},
		InfrastructureRef: refTo(s.Infrastructure),
		FailureDomain:     firstSet(mdt.FailureDomain, class.FailureDomain),
		MinReadySeconds:   class.MinReadySeconds,
		ReadinessGates:    class.ReadinessGates,
		Taints:            class.Taints,
		Deletion:          deletion,
	}
	if mdt.MinReadySeconds != nil {
		spec.MinReadySeconds = mdt.MinReadySeconds
	}
	if mdt.ReadinessGates != nil {
		spec.ReadinessGates = mdt.ReadinessGates
	}
	if mdt.Taints != nil {
		spec.Taints = mdt.Taints
	}
	return spec
}

// rollout is the topology's rollout strategy if it sets one, else the class's.
func rollout(class *clusterv1.MachineDeploymentClass, mdt *clusterv1.MachineDeploymentTopology) clusterv1.MachineDeploymentRolloutSpec {
	strategy := class.Rollout.Strategy
	if !isZero(mdt.Rollout.Strategy) {
		strategy = mdt.Rollout.Strategy
	}
	return clusterv1.MachineDeploymentRolloutSpec{
		After: mdt.Rollout.After,
		Strategy: clusterv1.MachineDeploymentRolloutStrategy{
			Type: strategy.Type,
			RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
				MaxUnavailable: strategy.RollingUpdate.MaxUnavailable,
				MaxSurge:       strategy.RollingUpdate.MaxSurge,
			},
		},
	}
}

func findMachineDeploymentClass(cc *clusterv1.ClusterClass, name string) *clusterv1.MachineDeploymentClass {
	for i := range cc.Spec.Workers.MachineDeployments {
		if cc.Spec.Workers.MachineDeployments[i].Class == name {
			return &cc.Spec.Workers.MachineDeployments[i]
		}
	}
	return nil
}

// orNew is the current template copy's name, or a new one.
func orNew(current, clusterName, mdTopologyName string, random func() string) string {
	if current != "" {
		return current
	}
	return TemplateCopyName(clusterName, mdTopologyName, random)
}

func firstSet[T comparable](values ...T) T {
	var zero T
	for _, v := range values {
		if v != zero {
			return v
		}
	}
	return zero
}
