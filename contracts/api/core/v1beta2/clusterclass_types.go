/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ClusterClassKind is the kind of ClusterClass.
const ClusterClassKind = "ClusterClass"

// ClusterClassFinalizer holds a ClusterClass's deletion while a Cluster's spec.topology.classRef
// names it; the ClusterClass controller removes it once none does. Upstream refuses such a
// deletion in its webhook; Capstan runs no admission webhooks.
const ClusterClassFinalizer = "clusterclass.cluster.x-k8s.io"

// ClusterClass's Deleting condition, set only while a deletion waits for Clusters.
const (
	// ClusterClassDeletingCondition is true while the class is being deleted but still in use.
	ClusterClassDeletingCondition = DeletingCondition

	// ClusterClassDeletingWaitingForClustersReason is used while Clusters still use the class:
	// the message names them (namespace/name).
	ClusterClassDeletingWaitingForClustersReason = "WaitingForClusters"
)

// ClusterClass's VariablesReady condition and reasons.
const (
	// ClusterClassVariablesReadyCondition is true when every variable definition of the class has a
	// valid, structural schema and no two definitions of one name conflict, so Clusters of the class
	// can have their variables defaulted and validated.
	ClusterClassVariablesReadyCondition = "VariablesReady"

	// ClusterClassVariablesReadyReason is used when the variables are ready.
	ClusterClassVariablesReadyReason = "VariablesReady"

	// ClusterClassVariablesReadyVariableDiscoveryFailedReason is used when a variable definition is
	// invalid or conflicts with another one (upstream's name, from the days when external patches
	// discovered variables).
	ClusterClassVariablesReadyVariableDiscoveryFailedReason = "VariableDiscoveryFailed"
)

// ClusterClass's RefVersionsUpToDate condition and reasons.
const (
	// ClusterClassRefVersionsUpToDateCondition is true when every template the class references
	// exists and is referenced at the newest API version its CRD declares for the contract.
	ClusterClassRefVersionsUpToDateCondition = "RefVersionsUpToDate"

	// ClusterClassRefVersionsUpToDateReason is used when all references are up to date.
	ClusterClassRefVersionsUpToDateReason = "RefVersionsUpToDate"

	// ClusterClassRefVersionsNotUpToDateReason is used when a reference names an older API version
	// than the one its CRD's contract label declares. The controller only reports it: it never
	// rewrites a class.
	ClusterClassRefVersionsNotUpToDateReason = "RefVersionsNotUpToDate"

	// ClusterClassRefVersionsUpToDateInternalErrorReason is used when a referenced template or its
	// CRD cannot be read: the message names the template and says what is missing.
	ClusterClassRefVersionsUpToDateInternalErrorReason = InternalErrorReason
)

// ClusterClassSpec describes a family of Clusters: the templates their objects are made from, the
// variables a Cluster may set and the patches that apply them to the templates.
type ClusterClassSpec struct {
	// availabilityGates are extra conditions for the Available condition of the class's Clusters; a
	// Cluster's own spec.availabilityGates replace them.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	AvailabilityGates []ClusterAvailabilityGate `json:"availabilityGates,omitempty"`

	// infrastructure is the template of each Cluster's InfraCluster.
	// +required
	Infrastructure InfrastructureClass `json:"infrastructure,omitempty,omitzero"`

	// controlPlane is the template of each Cluster's control plane object, and of its Machines'
	// infrastructure for a Machine-based control plane.
	// +required
	ControlPlane ControlPlaneClass `json:"controlPlane,omitempty,omitzero"`

	// workers are the kinds of MachineDeployments and MachinePools a Cluster may have.
	// +optional
	Workers WorkersClass `json:"workers,omitempty,omitzero"`

	// variables are the variables a Cluster of this class may (or must) set in
	// spec.topology.variables, with their schemas; patches read them.
	// +optional
	// Upstream declares the list atomic and checks unique names in its webhook; here a map list
	// keyed by name makes the apiserver refuse duplicates (a CEL pairwise check of 1000 entries
	// exceeds the cost budget). The JSON is the same.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	Variables []ClusterClassVariable `json:"variables,omitempty"`

	// patches customize the referenced templates with variable values; they apply in list order.
	// +optional
	// A map list keyed by name, for unique names, as variables.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	Patches []ClusterClassPatch `json:"patches,omitempty"`

	// upgrade configures how Clusters of this class are upgraded.
	// +optional
	Upgrade ClusterClassUpgrade `json:"upgrade,omitempty,omitzero"`

	// kubernetesVersions are the Kubernetes versions Clusters of this class may run, oldest first,
	// with at least one version of every minor between the first and the last.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:items:Pattern=`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-+][0-9A-Za-z.+-]*)?$`
	// +kubebuilder:validation:XValidation:rule="self.all(v, self.indexOf(v) == 0 || !isSemver(v, true) || !isSemver(self[self.indexOf(v) - 1], true) || (semver(self[self.indexOf(v) - 1], true).isLessThan(semver(v, true)) && semver(v, true).major() == semver(self[self.indexOf(v) - 1], true).major() && semver(v, true).minor() <= semver(self[self.indexOf(v) - 1], true).minor() + 1))",message="must be strictly increasing, oldest first, with at least one version of every minor version between the first and the last (e.g. v1.35.3, v1.36.0, v1.36.2, v1.37.2): the control plane upgrades one minor version at a time through them"
	KubernetesVersions []string `json:"kubernetesVersions,omitempty"`
}

// ClusterClassTemplateReference names a template in the ClusterClass's namespace. Unlike Cluster
// references it carries a version: the class pins the template's API, and the RefVersionsUpToDate
// condition reports when a newer one serves the same contract.
type ClusterClassTemplateReference struct {
	// kind of the template, e.g. DockerMachineTemplate.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind,omitempty"`

	// name of the template, a DNS subdomain.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`

	// apiVersion of the template, group/version, e.g. infrastructure.cluster.x-k8s.io/v1beta2.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[a-z]([-a-z0-9]*[a-z0-9])?$`
	APIVersion string `json:"apiVersion,omitempty"`
}

// IsDefined reports whether any field of the reference is set.
func (r *ClusterClassTemplateReference) IsDefined() bool {
	return r != nil && (r.Kind != "" || r.Name != "" || r.APIVersion != "")
}

// GroupVersionKind returns the referenced kind at the referenced version.
func (r *ClusterClassTemplateReference) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(r.APIVersion, r.Kind)
}

// InfrastructureClass is the class of a Cluster's InfraCluster.
type InfrastructureClass struct {
	// templateRef references the InfraCluster template, e.g. a DockerClusterTemplate.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.kind == oldSelf.kind && self.apiVersion.split('/')[0] == oldSelf.apiVersion.split('/')[0]",messageExpression="'the template kind and API group cannot change (it was ' + oldSelf.kind + ' of ' + oldSelf.apiVersion.split('/')[0] + '): Clusters of this class own objects generated from it; reference another ' + oldSelf.kind + ', or create a new ClusterClass'"
	TemplateRef ClusterClassTemplateReference `json:"templateRef,omitempty,omitzero"`

	// naming changes how the InfraCluster's name is generated.
	// +optional
	Naming NamingSpec `json:"naming,omitempty,omitzero"`
}

// NamingSpec is a Go template for the names of generated objects. It may use .cluster.name, .random
// (5 lowercase consonants and digits) and, for workers, .machineDeployment.topologyName or
// .machinePool.topologyName. A name longer than 63 characters is cut to 58 plus 5 random characters.
// +kubebuilder:validation:MinProperties=1
type NamingSpec struct {
	// template for the name, e.g. "{{ .cluster.name }}-{{ .random }}" (the default for the
	// InfraCluster and the control plane).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Template string `json:"template,omitempty"`
}

// ControlPlaneClass is the class of a Cluster's control plane.
// +kubebuilder:validation:XValidation:rule="has(self.machineInfrastructure) == has(oldSelf.machineInfrastructure)",message="controlPlane.machineInfrastructure cannot be added or removed: it decides whether the control planes of this class's Clusters are Machine-based; create a new ClusterClass instead",fieldPath=".machineInfrastructure"
// +kubebuilder:validation:XValidation:rule="!has(self.healthCheck) || has(self.machineInfrastructure)",message="controlPlane.healthCheck needs controlPlane.machineInfrastructure: a health check can only watch control plane Machines; set machineInfrastructure.templateRef or remove healthCheck",fieldPath=".healthCheck"
type ControlPlaneClass struct {
	// metadata goes on the control plane object and, if Machine-based, on its Machines; a
	// topology's metadata wins on key clashes.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty,omitzero"`

	// templateRef references the control plane template, e.g. a KubeadmControlPlaneTemplate.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.kind == oldSelf.kind && self.apiVersion.split('/')[0] == oldSelf.apiVersion.split('/')[0]",messageExpression="'the template kind and API group cannot change (it was ' + oldSelf.kind + ' of ' + oldSelf.apiVersion.split('/')[0] + '): Clusters of this class own objects generated from it; reference another ' + oldSelf.kind + ', or create a new ClusterClass'"
	TemplateRef ClusterClassTemplateReference `json:"templateRef,omitempty,omitzero"`

	// machineInfrastructure is the InfraMachine template of control plane Machines; only for a
	// Machine-based control plane.
	// +optional
	MachineInfrastructure ControlPlaneClassMachineInfrastructureTemplate `json:"machineInfrastructure,omitempty,omitzero"`

	// healthCheck defines a MachineHealthCheck for the control plane Machines.
	// +optional
	HealthCheck ControlPlaneClassHealthCheck `json:"healthCheck,omitempty,omitzero"`

	// naming changes how the control plane object's name is generated.
	// +optional
	Naming NamingSpec `json:"naming,omitempty,omitzero"`

	// deletion bounds Machine deletion steps; a topology may override it.
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints go on control plane Nodes when the topology lists none.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`

	// readinessGates are extra conditions for control plane Machines' Ready condition when the
	// topology lists none.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []MachineReadinessGate `json:"readinessGates,omitempty"`
}

// ControlPlaneClassMachineInfrastructureTemplate references the InfraMachine template of control
// plane Machines.
type ControlPlaneClassMachineInfrastructureTemplate struct {
	// templateRef references the InfraMachine template, e.g. a DockerMachineTemplate.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.kind == oldSelf.kind && self.apiVersion.split('/')[0] == oldSelf.apiVersion.split('/')[0]",messageExpression="'the template kind and API group cannot change (it was ' + oldSelf.kind + ' of ' + oldSelf.apiVersion.split('/')[0] + '): Clusters of this class own objects generated from it; reference another ' + oldSelf.kind + ', or create a new ClusterClass'"
	TemplateRef ClusterClassTemplateReference `json:"templateRef,omitempty,omitzero"`
}

// HealthCheckChecks decide when a Machine of a topology is unhealthy. Unlike a MachineHealthCheck's
// checks they have no default here: the topology controller applies the 10-minute node startup
// default when it builds the MachineHealthCheck, so a class and a topology can be told apart.
// +kubebuilder:validation:MinProperties=1
type HealthCheckChecks struct {
	// nodeStartupTimeoutSeconds is how long a Machine may go without a Node before it is unhealthy;
	// 0 disables the check, unset means 600.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeStartupTimeoutSeconds *int32 `json:"nodeStartupTimeoutSeconds,omitempty"`

	// unhealthyNodeConditions make a Machine unhealthy when its Node has had one of them for longer
	// than its timeout.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	UnhealthyNodeConditions []UnhealthyNodeCondition `json:"unhealthyNodeConditions,omitempty"`

	// unhealthyMachineConditions make a Machine unhealthy when it has had one of them for longer
	// than its timeout.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	UnhealthyMachineConditions []UnhealthyMachineCondition `json:"unhealthyMachineConditions,omitempty"`
}

// ControlPlaneClassHealthCheck defines a MachineHealthCheck for control plane Machines.
// +kubebuilder:validation:MinProperties=1
type ControlPlaneClassHealthCheck struct {
	// checks decide when a Machine is unhealthy.
	// +optional
	Checks HealthCheckChecks `json:"checks,omitempty,omitzero"`

	// remediation configures whether and how unhealthy Machines are remediated.
	// +optional
	Remediation HealthCheckRemediation `json:"remediation,omitempty,omitzero"`
}

// HealthCheckRemediation configures remediation of a topology's control plane Machines.
// +kubebuilder:validation:MinProperties=1
type HealthCheckRemediation struct {
	// triggerIf limits when remediation happens.
	// +optional
	TriggerIf HealthCheckRemediationTriggerIf `json:"triggerIf,omitempty,omitzero"`

	// templateRef references an external remediation template.
	// +optional
	TemplateRef MachineHealthCheckRemediationTemplateReference `json:"templateRef,omitempty,omitzero"`
}

// HealthCheckRemediationTriggerIf limits when remediation of a topology's Machines happens. Its
// int-or-string field carries no CEL rule, unlike the MachineHealthCheck's: inside the lists of a
// topology the apiserver's cost estimate for a regular expression on an unbounded string exceeds
// the budget. The MachineHealthCheck the topology controller writes is checked by its own schema.
// +kubebuilder:validation:MinProperties=1
type HealthCheckRemediationTriggerIf struct {
	// unhealthyLessThanOrEqualTo allows remediation only while at most this many Machines (a number
	// or a percentage, e.g. 40%) are unhealthy.
	// +optional
	// +kubebuilder:validation:XIntOrString
	UnhealthyLessThanOrEqualTo *intstr.IntOrString `json:"unhealthyLessThanOrEqualTo,omitempty"`

	// unhealthyInRange allows remediation only while the number of unhealthy Machines is in
	// "[min-max]", e.g. "[3-5]"; it wins over unhealthyLessThanOrEqualTo.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^\[[0-9]+-[0-9]+\]$`
	UnhealthyInRange string `json:"unhealthyInRange,omitempty"`
}

// WorkersClass lists the kinds of workers a Cluster of the class may have.
// +kubebuilder:validation:MinProperties=1
type WorkersClass struct {
	// machineDeployments are the MachineDeployment classes, each with a unique class name.
	// +optional
	// +listType=map
	// +listMapKey=class
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	MachineDeployments []MachineDeploymentClass `json:"machineDeployments,omitempty"`

	// machinePools are the MachinePool classes, each with a unique class name.
	// +optional
	// +listType=map
	// +listMapKey=class
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	MachinePools []MachinePoolClass `json:"machinePools,omitempty"`
}

// MachineDeploymentClass is a kind of MachineDeployment a Cluster's topology may instantiate.
type MachineDeploymentClass struct {
	// metadata goes on the MachineDeployment and its Machines; a topology's metadata wins on key clashes.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty,omitzero"`

	// class is the name topologies use to pick this class; unique in the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'class \"' + self + '\" is not a valid class name: use lowercase letters, digits, dashes and dots, starting and ending with a letter or digit, e.g. default-worker'"
	Class string `json:"class,omitempty"`

	// bootstrap references the bootstrap config template of the Machines.
	// +required
	Bootstrap WorkerClassBootstrapTemplate `json:"bootstrap,omitempty,omitzero"`

	// infrastructure references the InfraMachine template of the Machines.
	// +required
	Infrastructure WorkerClassInfrastructureTemplate `json:"infrastructure,omitempty,omitzero"`

	// healthCheck defines a MachineHealthCheck for the MachineDeployment's Machines.
	// +optional
	HealthCheck MachineDeploymentClassHealthCheck `json:"healthCheck,omitempty,omitzero"`

	// failureDomain the Machines are created in, unless the topology says otherwise.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// naming changes how the MachineDeployment's name is generated; the default is
	// "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-{{ .random }}".
	// +optional
	Naming NamingSpec `json:"naming,omitempty,omitzero"`

	// deletion sets the scale-down order and bounds Machine deletion steps.
	// +optional
	Deletion MachineDeploymentClassMachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints go on the Machines' Nodes when the topology lists none.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`

	// minReadySeconds is how long a new Machine must be ready before it counts as available.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// readinessGates are extra conditions for the Machines' Ready condition when the topology lists none.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []MachineReadinessGate `json:"readinessGates,omitempty"`

	// rollout configures how the MachineDeployment replaces Machines.
	// +optional
	Rollout MachineDeploymentClassRolloutSpec `json:"rollout,omitempty,omitzero"`
}

// WorkerClassBootstrapTemplate references the bootstrap config template of worker Machines.
type WorkerClassBootstrapTemplate struct {
	// templateRef references the bootstrap config template, e.g. a KubeadmConfigTemplate.
	// +required
	TemplateRef ClusterClassTemplateReference `json:"templateRef,omitempty,omitzero"`
}

// WorkerClassInfrastructureTemplate references the infrastructure template of worker Machines
// (an InfraMachine template) or of a pool (an InfraMachinePool template).
type WorkerClassInfrastructureTemplate struct {
	// templateRef references the infrastructure template, e.g. a DockerMachineTemplate.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.kind == oldSelf.kind && self.apiVersion.split('/')[0] == oldSelf.apiVersion.split('/')[0]",messageExpression="'the template kind and API group cannot change (it was ' + oldSelf.kind + ' of ' + oldSelf.apiVersion.split('/')[0] + '): Clusters of this class own objects generated from it; reference another ' + oldSelf.kind + ', or create a new ClusterClass'"
	TemplateRef ClusterClassTemplateReference `json:"templateRef,omitempty,omitzero"`
}

// MachineDeploymentClassHealthCheck defines a MachineHealthCheck for MachineDeployment Machines.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentClassHealthCheck struct {
	// checks decide when a Machine is unhealthy.
	// +optional
	Checks HealthCheckChecks `json:"checks,omitempty,omitzero"`

	// remediation configures whether and how unhealthy Machines are remediated.
	// +optional
	Remediation MachineDeploymentClassHealthCheckRemediation `json:"remediation,omitempty,omitzero"`
}

// MachineDeploymentClassHealthCheckRemediation configures remediation of MachineDeployment Machines.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentClassHealthCheckRemediation struct {
	// maxInFlight is how many Machines may be remediated at once, a number or a percentage (no
	// CEL rule here, see HealthCheckRemediationTriggerIf).
	// +optional
	// +kubebuilder:validation:XIntOrString
	MaxInFlight *intstr.IntOrString `json:"maxInFlight,omitempty"`

	// triggerIf limits when remediation happens.
	// +optional
	TriggerIf HealthCheckRemediationTriggerIf `json:"triggerIf,omitempty,omitzero"`

	// templateRef references an external remediation template.
	// +optional
	TemplateRef MachineHealthCheckRemediationTemplateReference `json:"templateRef,omitempty,omitzero"`
}

// MachineDeploymentClassMachineDeletionSpec sets the scale-down order and bounds Machine deletion.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentClassMachineDeletionSpec struct {
	// order in which Machines are deleted when scaling down: Random (default), Newest or Oldest.
	// +optional
	Order MachineSetDeletionOrder `json:"order,omitempty"`

	// nodeDrainTimeoutSeconds is the most time spent draining a Node; 0 means no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDrainTimeoutSeconds *int32 `json:"nodeDrainTimeoutSeconds,omitempty"`

	// nodeVolumeDetachTimeoutSeconds is the most time spent waiting for volumes to detach; 0 means no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeVolumeDetachTimeoutSeconds *int32 `json:"nodeVolumeDetachTimeoutSeconds,omitempty"`

	// nodeDeletionTimeoutSeconds is how long deleting the Node is retried; 0 means forever.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDeletionTimeoutSeconds *int32 `json:"nodeDeletionTimeoutSeconds,omitempty"`
}

// MachineDeploymentClassRolloutSpec configures how a MachineDeployment replaces Machines.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentClassRolloutSpec struct {
	// strategy is how Machines are replaced.
	// +optional
	Strategy MachineDeploymentClassRolloutStrategy `json:"strategy,omitempty,omitzero"`
}

// MachineDeploymentClassRolloutStrategy is how a MachineDeployment of a topology replaces Machines.
// Unlike the MachineDeployment's own field it has no default, so that an unset class or topology
// value leaves the MachineDeployment's default in place.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentClassRolloutStrategy struct {
	// type of rollout: RollingUpdate or OnDelete.
	// +required
	Type MachineDeploymentRolloutStrategyType `json:"type,omitempty"`

	// rollingUpdate bounds a RollingUpdate.
	// +optional
	RollingUpdate MachineDeploymentClassRolloutStrategyRollingUpdate `json:"rollingUpdate,omitempty,omitzero"`
}

// MachineDeploymentClassRolloutStrategyRollingUpdate bounds a rolling update of a topology's
// MachineDeployment. Its int-or-string fields carry no CEL rule (see HealthCheckRemediationTriggerIf):
// the MachineDeployment's own schema checks them when the topology controller writes it.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentClassRolloutStrategyRollingUpdate struct {
	// maxUnavailable is how many Machines may be unavailable during the update, a number or a percentage.
	// +optional
	// +kubebuilder:validation:XIntOrString
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// maxSurge is how many Machines may exist above the desired number, a number or a percentage.
	// +optional
	// +kubebuilder:validation:XIntOrString
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// MachinePoolClass is a kind of MachinePool a Cluster's topology may instantiate.
type MachinePoolClass struct {
	// metadata goes on the MachinePool; a topology's metadata wins on key clashes.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty,omitzero"`

	// class is the name topologies use to pick this class; unique in the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'class \"' + self + '\" is not a valid class name: use lowercase letters, digits, dashes and dots, starting and ending with a letter or digit, e.g. default-pool'"
	Class string `json:"class,omitempty"`

	// bootstrap references the bootstrap config template of the pool.
	// +required
	Bootstrap WorkerClassBootstrapTemplate `json:"bootstrap,omitempty,omitzero"`

	// infrastructure references the InfraMachinePool template of the pool.
	// +required
	Infrastructure WorkerClassInfrastructureTemplate `json:"infrastructure,omitempty,omitzero"`

	// failureDomains the pool spans, unless the topology says otherwise.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	FailureDomains []string `json:"failureDomains,omitempty"`

	// naming changes how the MachinePool's name is generated; the default is
	// "{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}".
	// +optional
	Naming NamingSpec `json:"naming,omitempty,omitzero"`

	// deletion bounds Machine deletion steps.
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints go on the pool's Nodes when the topology lists none.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`

	// minReadySeconds is how long a new Machine must be ready before it counts as available.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`
}

// ClusterClassUpgrade configures upgrades of the class's Clusters.
// +kubebuilder:validation:MinProperties=1
type ClusterClassUpgrade struct {
	// external names Runtime Extensions that take part in upgrades.
	// +optional
	External ClusterClassUpgradeExternal `json:"external,omitempty,omitzero"`
}

// ClusterClassUpgradeExternal names Runtime Extensions that take part in upgrades.
// +kubebuilder:validation:MinProperties=1
type ClusterClassUpgradeExternal struct {
	// generateUpgradePlanExtension names the GenerateUpgradePlan handler (<handler>.<ExtensionConfig>)
	// that computes the control plane's multi-step upgrade plans, instead of spec.kubernetesVersions.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	GenerateUpgradePlanExtension string `json:"generateUpgradePlanExtension,omitempty"`
}

// ClusterClassStatus is the observed state of a ClusterClass.
// +kubebuilder:validation:MinProperties=1
type ClusterClassStatus struct {
	// conditions: VariablesReady, RefVersionsUpToDate, Paused, and Deleting while a deletion waits
	// for the Clusters that use the class.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// variables are the class's variable definitions, sorted by name, as Clusters see them.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	Variables []ClusterClassStatusVariable `json:"variables,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on; Clusters of the
	// class wait until it equals the class's generation.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ClusterClassStatusVariable is a variable with all its definitions.
type ClusterClassStatusVariable struct {
	// name of the variable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// definitionsConflict is true when the definitions of this name differ; the class then has
	// VariablesReady False and its Clusters cannot be reconciled.
	// +optional
	DefinitionsConflict *bool `json:"definitionsConflict,omitempty"`

	// definitions of the variable, one per source.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Definitions []ClusterClassStatusVariableDefinition `json:"definitions,omitempty"`
}

// ClusterClassStatusVariableDefinition is one definition of a variable.
type ClusterClassStatusVariableDefinition struct {
	// from is where the definition comes from: "inline" for spec.variables, else a patch name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	From string `json:"from,omitempty"`

	// required says whether Clusters must set the variable.
	// +required
	Required *bool `json:"required,omitempty"`

	// deprecatedV1Beta1Metadata is the variable's metadata as v1beta1 had it.
	// +optional
	DeprecatedV1Beta1Metadata ClusterClassVariableMetadata `json:"deprecatedV1Beta1Metadata,omitempty,omitzero"`

	// schema of the variable.
	// +required
	Schema VariableSchema `json:"schema,omitempty,omitzero"`
}

// VariableDefinitionFromInline is the from of definitions in spec.variables.
const VariableDefinitionFromInline = "inline"

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterclasses,shortName=cc,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Variables Ready",type="string",JSONPath=`.status.conditions[?(@.type=="VariablesReady")].status`,description="Whether the variable definitions are valid"
// +kubebuilder:printcolumn:name="Refs Up To Date",type="string",JSONPath=`.status.conditions[?(@.type=="RefVersionsUpToDate")].status`,description="Whether every template exists at the newest contract version",priority=10
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ClusterClass was created"

// ClusterClass describes a family of Clusters that a Cluster joins through spec.topology: templates
// for its objects, variables and patches.
type ClusterClass struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ClusterClass.
	// +required
	Spec ClusterClassSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the ClusterClass.
	// +optional
	Status ClusterClassStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the ClusterClass's conditions, for shared condition helpers.
func (c *ClusterClass) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions replaces the ClusterClass's conditions, for shared condition helpers.
func (c *ClusterClass) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// ClusterClassList is a list of ClusterClasses.
type ClusterClassList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ClusterClasses.
	Items []ClusterClass `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ClusterClass{}, &ClusterClassList{})
}
