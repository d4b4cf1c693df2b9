package desired

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
)

// machinePoolNames keeps the current names of a pool and of the objects it references, and
// generates the missing ones: the pool's from its class's naming template, its BootstrapConfig's
// and InfraMachinePool's as upstream does, "<cluster>-<topologyName>-" and 5 random characters.
func machinePoolNames(in *Input, mpt clusterv1.MachinePoolTopology, random func() string) (CurrentWorker, error) {
	c, cc := in.Cluster, in.Class
	n := in.Current.MachinePools[mpt.Name]
	if n.Name == "" {
		class := findMachinePoolClass(cc, mpt.Class)
		if class == nil {
			return n, unknownMachinePoolClass(cc, mpt)
		}
		name, err := RenderMachinePoolName(class.Naming.Template, c.Name, mpt.Name, random)
		if err != nil {
			return n, fmt.Errorf("ClusterClass %s spec.workers.machinePools[%s].naming.template: %w", cc.Name, class.Class, err)
		}
		n.Name = name
	}
	n.BootstrapName = orNew(n.BootstrapName, c.Name, mpt.Name, random)
	n.InfrastructureName = orNew(n.InfrastructureName, c.Name, mpt.Name, random)
	return n, nil
}

// computeMachinePool generates one topology entry's MachinePool, and its BootstrapConfig and
// InfraMachinePool from its class's templates (objects, as the control plane's: upstream updates
// them in place and never rotates them); topology values replace the class's.
func computeMachinePool(in *Input, tpls *Templates, mpt clusterv1.MachinePoolTopology, names CurrentWorker) (*MachinePoolState, error) {
	c := in.Cluster
	class := findMachinePoolClass(in.Class, mpt.Class)
	if class == nil {
		return nil, unknownMachinePoolClass(in.Class, mpt)
	}
	poolLabel := map[string]string{clusterv1.ClusterTopologyMachinePoolNameLabel: mpt.Name}
	t := tpls.MachinePools[mpt.Name]
	out := &MachinePoolState{TopologyName: mpt.Name}
	var err error
	if out.Bootstrap, err = poolObject(t.Bootstrap, c, names.BootstrapName, poolLabel); err != nil {
		return nil, fmt.Errorf("MachinePool %s bootstrap: %w", mpt.Name, err)
	}
	if out.Infrastructure, err = poolObject(t.Infrastructure, c, names.InfrastructureName, poolLabel); err != nil {
		return nil, fmt.Errorf("MachinePool %s infrastructure: %w", mpt.Name, err)
	}

	labels, annotations := machinePoolMetadata(c.Name, class, &mpt)
	failureDomains := class.FailureDomains
	if mpt.FailureDomains != nil {
		failureDomains = mpt.FailureDomains
	}
	mp := &clusterv1.MachinePool{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachinePool"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: c.Namespace, Name: names.Name,
			Labels:          labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{owner.ClusterReference(c)},
		},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName:    c.Name,
			Replicas:       mpt.Replicas,
			FailureDomains: failureDomains,
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: labels, Annotations: annotations},
				Spec:       machinePoolMachineSpec(c, class, &mpt, out, in.Versions.ForMachinePool(c, mpt.Name)),
			},
		},
	}
	if len(annotations) == 0 {
		mp.Spec.Template.Annotations = nil
	}
	out.Object = mp
	return out, nil
}

// machinePoolMetadata is the labels and annotations of a topology entry's MachinePool: the
// class's and the entry's metadata merged, and the topology's marks.
func machinePoolMetadata(clusterName string, class *clusterv1.MachinePoolClass, mpt *clusterv1.MachinePoolTopology) (labels, annotations map[string]string) {
	labels, annotations = mergeMetadata(class.Metadata, mpt.Metadata)
	poolLabel := map[string]string{clusterv1.ClusterTopologyMachinePoolNameLabel: mpt.Name}
	return mergeInto(labels, topologyLabels(poolLabel, clusterName)), annotations
}

// machinePoolMachineSpec is the MachinePool's instance template spec.
func machinePoolMachineSpec(c *clusterv1.Cluster, class *clusterv1.MachinePoolClass, mpt *clusterv1.MachinePoolTopology, s *MachinePoolState, version string) clusterv1.MachineSpec {
	deletion := class.Deletion
	overrideTimeouts(&deletion, mpt.Deletion)
	spec := clusterv1.MachineSpec{
		ClusterName:       c.Name,
		Version:           version,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: refTo(s.Bootstrap)},
		InfrastructureRef: refTo(s.Infrastructure),
		MinReadySeconds:   class.MinReadySeconds,
		Taints:            class.Taints,
		Deletion:          deletion,
	}
	if mpt.MinReadySeconds != nil {
		spec.MinReadySeconds = mpt.MinReadySeconds
	}
	if mpt.Taints != nil {
		spec.Taints = mpt.Taints
	}
	return spec
}

// poolObject generates a pool's BootstrapConfig or InfraMachinePool from its class's template,
// labelled with the pool's topology name.
func poolObject(tpl *unstructured.Unstructured, c *clusterv1.Cluster, name string, poolLabel map[string]string) (*unstructured.Unstructured, error) {
	obj, err := objectFromTemplate(tpl, c, name)
	if err != nil {
		return nil, err
	}
	obj.SetLabels(mergeInto(obj.GetLabels(), poolLabel))
	return obj, nil
}

func findMachinePoolClass(cc *clusterv1.ClusterClass, name string) *clusterv1.MachinePoolClass {
	for i := range cc.Spec.Workers.MachinePools {
		if cc.Spec.Workers.MachinePools[i].Class == name {
			return &cc.Spec.Workers.MachinePools[i]
		}
	}
	return nil
}

func unknownMachinePoolClass(cc *clusterv1.ClusterClass, mpt clusterv1.MachinePoolTopology) error {
	return fmt.Errorf("spec.topology.workers.machinePools[%s].class: ClusterClass %s has no MachinePool class %q", mpt.Name, cc.Name, mpt.Class)
}
