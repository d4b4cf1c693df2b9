package desired

import (
	"fmt"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Metadata is the labels and annotations of a Cluster's generated ControlPlane, MachineDeployments
// and MachinePools, which patches see as builtin variables (builtin.controlPlane.metadata, ...).
type Metadata struct {
	ControlPlane clusterv1.ObjectMeta
	// MachineDeployments and MachinePools are keyed by topology name.
	MachineDeployments map[string]clusterv1.ObjectMeta
	MachinePools       map[string]clusterv1.ObjectMeta
}

// GeneratedMetadata computes the metadata the generated objects get from c's class and topology
// and from tpls, the class's templates before patches run (as upstream computes its builtins from
// the objects generated before patching).
func GeneratedMetadata(c *clusterv1.Cluster, cc *clusterv1.ClusterClass, tpls *Templates) (*Metadata, error) {
	out := &Metadata{MachineDeployments: map[string]clusterv1.ObjectMeta{}, MachinePools: map[string]clusterv1.ObjectMeta{}}
	cp, _, _, err := controlPlaneObject(c, cc, tpls.ControlPlane, "")
	if err != nil {
		return nil, fmt.Errorf("the control plane's metadata: %w", err)
	}
	out.ControlPlane = clusterv1.ObjectMeta{Labels: cp.GetLabels(), Annotations: cp.GetAnnotations()}
	for i := range c.Spec.Topology.Workers.MachineDeployments {
		mdt := &c.Spec.Topology.Workers.MachineDeployments[i]
		if class := findMachineDeploymentClass(cc, mdt.Class); class != nil {
			labels, annotations := machineDeploymentMetadata(c.Name, class, mdt)
			out.MachineDeployments[mdt.Name] = clusterv1.ObjectMeta{Labels: labels, Annotations: annotations}
		}
	}
	for i := range c.Spec.Topology.Workers.MachinePools {
		mpt := &c.Spec.Topology.Workers.MachinePools[i]
		if class := findMachinePoolClass(cc, mpt.Class); class != nil {
			labels, annotations := machinePoolMetadata(c.Name, class, mpt)
			out.MachinePools[mpt.Name] = clusterv1.ObjectMeta{Labels: labels, Annotations: annotations}
		}
	}
	return out, nil
}
