package desired

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// Input is everything the desired state is computed from; Compute does not change it.
type Input struct {
	// Cluster has a topology; its variables are already defaulted.
	Cluster *clusterv1.Cluster
	// Class is the Cluster's ClusterClass.
	Class *clusterv1.ClusterClass
	// Templates are the class's templates, as read.
	Templates Templates
	// Current names what exists, so that generated names are kept once created.
	Current Current
	// ControlPlaneContract is the contract version of the control plane's kind (where its
	// machine template's infrastructureRef lives); empty means v1beta2.
	ControlPlaneContract contract.ContractVersion
	// Random returns the random part of generated names; nil means RandomSuffix.
	Random func() string
	// Versions are the versions the upgrade plan gives the ControlPlane, MachineDeployments and
	// MachinePools (see topology/upgrade); empty entries mean spec.topology.version.
	Versions Versions
	// Patch, when set, changes the template copies before objects are generated from them
	// (the class's patches), knowing the generated objects' names and versions (for builtin
	// variables); it returns an error naming the patch and the path that failed.
	Patch func(*Templates, *Names, Versions) error
}

// Versions are the Kubernetes versions of the generated objects while an upgrade is orchestrated;
// an empty entry means the topology's version.
type Versions struct {
	ControlPlane string
	// MachineDeployments and MachinePools are keyed by topology name.
	MachineDeployments map[string]string
	MachinePools       map[string]string
}

// ForControlPlane is the control plane's version for c.
func (v Versions) ForControlPlane(c *clusterv1.Cluster) string {
	if v.ControlPlane != "" {
		return v.ControlPlane
	}
	return c.Spec.Topology.Version
}

// ForMachineDeployment is the version of c's MachineDeployment topology entry topologyName.
func (v Versions) ForMachineDeployment(c *clusterv1.Cluster, topologyName string) string {
	if s := v.MachineDeployments[topologyName]; s != "" {
		return s
	}
	return c.Spec.Topology.Version
}

// ForMachinePool is the version of c's MachinePool topology entry topologyName.
func (v Versions) ForMachinePool(c *clusterv1.Cluster, topologyName string) string {
	if s := v.MachinePools[topologyName]; s != "" {
		return s
	}
	return c.Spec.Topology.Version
}

// Names are the generated objects' names: the current ones, or new ones from the naming templates
// (template copies: "<cluster>-[<topologyName>-]<random>"). Patches see them as builtin variables
// before they run; a copy whose spec a patch changes is renamed after them (template rotation), as
// upstream's builtins also name the copy before rotation.
type Names struct {
	InfrastructureCluster string
	ControlPlane          string
	// ControlPlaneMachineInfrastructure is the control plane's InfraMachineTemplate copy; empty
	// when the class has no machineInfrastructure.
	ControlPlaneMachineInfrastructure string
	// MachineDeployments are keyed by topology name: the MachineDeployment's and its template
	// copies' names.
	MachineDeployments map[string]CurrentWorker
	// MachinePools are keyed by topology name: the pool's, its BootstrapConfig's and its
	// InfraMachinePool's names (objects, not templates: they keep their names).
	MachinePools map[string]CurrentWorker
}

// Templates are a class's templates, keyed as the class references them. Compute gives Patch a
// copy per MachineDeployment and MachinePool topology entry, so per-entry variables can patch
// them differently.
type Templates struct {
	InfrastructureCluster             *unstructured.Unstructured
	ControlPlane                      *unstructured.Unstructured
	ControlPlaneMachineInfrastructure *unstructured.Unstructured // nil: the class has none
	// MachineDeployments are keyed by MachineDeployment class when read, and by topology name
	// when handed to Patch.
	MachineDeployments map[string]WorkerTemplates
	// MachinePools are keyed by MachinePool class when read, and by topology name when handed
	// to Patch.
	MachinePools map[string]WorkerTemplates
}

// WorkerTemplates are one worker class's (MachineDeployment or MachinePool) bootstrap and
// infrastructure templates.
type WorkerTemplates struct {
	Bootstrap      *unstructured.Unstructured
	Infrastructure *unstructured.Unstructured
}

// Current names the generated objects that exist (empty: not created yet).
type Current struct {
	InfrastructureClusterName string
	ControlPlaneName          string
	// ControlPlaneMachineInfrastructureName is the template copy the control plane references.
	ControlPlaneMachineInfrastructureName string
	// MachineDeployments are keyed by topology name.
	MachineDeployments map[string]CurrentWorker
	// MachinePools are keyed by topology name: the pool and the objects it references.
	MachinePools map[string]CurrentWorker
}

// CurrentWorker names an existing MachineDeployment or MachinePool and the objects it
// references (a MachineDeployment's template copies, a MachinePool's BootstrapConfig and
// InfraMachinePool).
type CurrentWorker struct {
	Name, BootstrapName, InfrastructureName string
}

// State is the desired state of a topology Cluster.
type State struct {
	// InfrastructureRef and ControlPlaneRef are what the Cluster's spec must reference.
	InfrastructureRef clusterv1.ContractVersionedObjectReference
	ControlPlaneRef   clusterv1.ContractVersionedObjectReference

	InfrastructureCluster *unstructured.Unstructured
	ControlPlane          *unstructured.Unstructured
	// ControlPlaneMachineInfrastructure is the control plane's InfraMachineTemplate copy; nil
	// when the class has no machineInfrastructure.
	ControlPlaneMachineInfrastructure *unstructured.Unstructured
	// ControlPlaneHealthCheck is nil when no health check is enabled for the control plane.
	ControlPlaneHealthCheck *clusterv1.MachineHealthCheck
	// MachineDeployments are in topology order.
	MachineDeployments []MachineDeploymentState
	// MachinePools are in topology order.
	MachinePools []MachinePoolState
}

// MachineDeploymentState is one topology entry's MachineDeployment and what goes with it.
type MachineDeploymentState struct {
	TopologyName   string
	Object         *clusterv1.MachineDeployment
	Bootstrap      *unstructured.Unstructured
	Infrastructure *unstructured.Unstructured
	// HealthCheck is nil when no health check is enabled for this MachineDeployment.
	HealthCheck *clusterv1.MachineHealthCheck
}

// MachinePoolState is one topology entry's MachinePool and the objects it references, generated
// from its class's templates (upstream's topology creates them as objects and updates them in
// place, unlike a MachineDeployment's template copies).
type MachinePoolState struct {
	TopologyName   string
	Object         *clusterv1.MachinePool
	Bootstrap      *unstructured.Unstructured
	Infrastructure *unstructured.Unstructured
}
