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

package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ClusterClassSpec is upstream's v1beta1 ClusterClassSpec: templates as ObjectReferences under
// `ref`, naming strategies, MachineHealthCheck-shaped health checks and durations.
type ClusterClassSpec struct {
	// availabilityGates are extra conditions for the Available condition of the Clusters.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MaxItems=32
	AvailabilityGates []clusterv1.ClusterAvailabilityGate `json:"availabilityGates,omitempty"`

	// infrastructure references the InfrastructureClusterTemplate.
	// +optional
	Infrastructure LocalObjectTemplate `json:"infrastructure,omitempty"`

	// infrastructureNamingStrategy names the infrastructure cluster objects.
	// +optional
	InfrastructureNamingStrategy *InfrastructureNamingStrategy `json:"infrastructureNamingStrategy,omitempty"`

	// controlPlane is the control plane class.
	// +optional
	ControlPlane ControlPlaneClass `json:"controlPlane,omitempty"`

	// workers are the MachineDeployment and MachinePool classes.
	// +optional
	Workers WorkersClass `json:"workers,omitempty"`

	// variables the Clusters of this class may set.
	// +optional
	// +kubebuilder:validation:MaxItems=1000
	Variables []ClusterClassVariable `json:"variables,omitempty"`

	// patches customise the templates, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=1000
	Patches []ClusterClassPatch `json:"patches,omitempty"`

	// upgrade configures upgrades of the Clusters of this class.
	// +optional
	Upgrade clusterv1.ClusterClassUpgrade `json:"upgrade,omitempty,omitzero"`

	// kubernetesVersions the Clusters of this class may run, oldest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	KubernetesVersions []string `json:"kubernetesVersions,omitempty"`
}

// LocalObjectTemplate references a template of a class.
type LocalObjectTemplate struct {
	// ref is the template.
	// +optional
	Ref *corev1.ObjectReference `json:"ref,omitempty"`
}

// InfrastructureNamingStrategy names infrastructure cluster objects.
type InfrastructureNamingStrategy struct {
	// template is a Go template for the name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Template *string `json:"template,omitempty"`
}

// ControlPlaneClassNamingStrategy names control plane objects.
type ControlPlaneClassNamingStrategy struct {
	// template is a Go template for the name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Template *string `json:"template,omitempty"`
}

// MachineDeploymentClassNamingStrategy names MachineDeployments.
type MachineDeploymentClassNamingStrategy struct {
	// template is a Go template for the name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Template *string `json:"template,omitempty"`
}

// MachinePoolClassNamingStrategy names MachinePools.
type MachinePoolClassNamingStrategy struct {
	// template is a Go template for the name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Template *string `json:"template,omitempty"`
}

// ControlPlaneClass is upstream's v1beta1 control plane class.
type ControlPlaneClass struct {
	// metadata goes on the control plane object and its Machines.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`

	// LocalObjectTemplate references the ControlPlaneTemplate.
	LocalObjectTemplate `json:",inline"`

	// machineInfrastructure references the control plane Machines' InfrastructureMachineTemplate.
	// +optional
	MachineInfrastructure *LocalObjectTemplate `json:"machineInfrastructure,omitempty"`

	// machineHealthCheck for the control plane Machines.
	// +optional
	MachineHealthCheck *MachineHealthCheckClass `json:"machineHealthCheck,omitempty"`

	// namingStrategy names the control plane object.
	// +optional
	NamingStrategy *ControlPlaneClassNamingStrategy `json:"namingStrategy,omitempty"`

	// nodeDrainTimeout bounds the drain of a Node.
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`

	// nodeVolumeDetachTimeout bounds the wait for volumes to detach.
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`

	// nodeDeletionTimeout bounds the deletion of the Node.
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`

	// taints Cluster API manages on the control plane Nodes.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`

	// readinessGates of the control plane Machines.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`
}

// WorkersClass lists the MachineDeployment and MachinePool classes.
type WorkersClass struct {
	// machineDeployments classes, unique by class.
	// +optional
	// +listType=map
	// +listMapKey=class
	// +kubebuilder:validation:MaxItems=100
	MachineDeployments []MachineDeploymentClass `json:"machineDeployments,omitempty"`

	// machinePools classes, unique by class.
	// +optional
	// +listType=map
	// +listMapKey=class
	// +kubebuilder:validation:MaxItems=100
	MachinePools []MachinePoolClass `json:"machinePools,omitempty"`
}

// MachineDeploymentClass is upstream's v1beta1 MachineDeployment class.
type MachineDeploymentClass struct {
	// class names this MachineDeployment class.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Class string `json:"class"`

	// template holds the metadata and the bootstrap and infrastructure templates.
	// +required
	Template MachineDeploymentClassTemplate `json:"template"`

	// machineHealthCheck for the MachineDeployments of this class.
	// +optional
	MachineHealthCheck *MachineHealthCheckClass `json:"machineHealthCheck,omitempty"`

	// failureDomain the Machines are created in.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain *string `json:"failureDomain,omitempty"`

	// namingStrategy names the MachineDeployments.
	// +optional
	NamingStrategy *MachineDeploymentClassNamingStrategy `json:"namingStrategy,omitempty"`

	// nodeDrainTimeout bounds the drain of a Node.
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`

	// nodeVolumeDetachTimeout bounds the wait for volumes to detach.
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`

	// nodeDeletionTimeout bounds the deletion of the Node.
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`

	// taints Cluster API manages on the Nodes.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`

	// minReadySeconds before a new Machine counts as available.
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// readinessGates of the Machines.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`

	// strategy is how Machines are replaced, the scale-down order and the remediation limit.
	// +optional
	Strategy *MachineDeploymentStrategy `json:"strategy,omitempty"`
}

// MachineDeploymentClassTemplate holds a MachineDeployment class's metadata and templates.
type MachineDeploymentClassTemplate struct {
	// metadata goes on the MachineDeployment and its Machines.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`

	// bootstrap references the BootstrapConfigTemplate.
	// +required
	Bootstrap LocalObjectTemplate `json:"bootstrap"`

	// infrastructure references the InfrastructureMachineTemplate.
	// +required
	Infrastructure LocalObjectTemplate `json:"infrastructure"`
}

// MachinePoolClass is upstream's v1beta1 MachinePool class.
type MachinePoolClass struct {
	// class names this MachinePool class.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Class string `json:"class"`

	// template holds the metadata and the bootstrap and infrastructure templates.
	// +required
	Template MachinePoolClassTemplate `json:"template"`

	// failureDomains the MachinePools span.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	FailureDomains []string `json:"failureDomains,omitempty"`

	// namingStrategy names the MachinePools.
	// +optional
	NamingStrategy *MachinePoolClassNamingStrategy `json:"namingStrategy,omitempty"`

	// nodeDrainTimeout bounds the drain of a Node.
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`

	// nodeVolumeDetachTimeout bounds the wait for volumes to detach.
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`

	// nodeDeletionTimeout bounds the deletion of the Node.
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`

	// taints Cluster API manages on the Nodes.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`

	// minReadySeconds before a new Machine counts as available.
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`
}

// MachinePoolClassTemplate holds a MachinePool class's metadata and templates.
type MachinePoolClassTemplate struct {
	// metadata goes on the MachinePool.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`

	// bootstrap references the BootstrapConfigTemplate.
	// +required
	Bootstrap LocalObjectTemplate `json:"bootstrap"`

	// infrastructure references the InfrastructureMachinePoolTemplate.
	// +required
	Infrastructure LocalObjectTemplate `json:"infrastructure"`
}

// ClusterClassStatus is upstream's v1beta1 ClusterClassStatus.
type ClusterClassStatus struct {
	// variables are the variable definitions of the class, from the class and from extensions.
	// +optional
	// +kubebuilder:validation:MaxItems=1000
	Variables []ClusterClassStatusVariable `json:"variables,omitempty"`

	// conditions are the v1beta1 conditions; Capstan keeps none (see the package doc).
	// +optional
	Conditions Conditions `json:"conditions,omitempty"`

	// observedGeneration is the latest generation observed by the controller.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// v1beta2 holds the v1beta2 conditions.
	// +optional
	V1Beta2 *ClusterClassV1Beta2Status `json:"v1beta2,omitempty"`
}

// ClusterClassV1Beta2Status holds the v1beta2 conditions of a ClusterClass.
type ClusterClassV1Beta2Status struct {
	// conditions of the ClusterClass: VariablesReady, RefVersionsUpToDate, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterClassStatusVariable is a variable of a class and its definitions.
type ClusterClassStatusVariable struct {
	// name of the variable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// definitionsConflict is true when the definitions differ.
	// +optional
	DefinitionsConflict bool `json:"definitionsConflict"`

	// definitions of the variable.
	// +required
	// +kubebuilder:validation:MaxItems=100
	Definitions []ClusterClassStatusVariableDefinition `json:"definitions"`
}

// ClusterClassStatusVariableDefinition is one definition of a variable.
type ClusterClassStatusVariableDefinition struct {
	// from is where the definition comes from: inline, or a patch's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	From string `json:"from"`

	// required says whether a value must be given.
	// +required
	Required bool `json:"required"`

	// metadata of the variable (deprecated upstream).
	// +optional
	Metadata ClusterClassVariableMetadata `json:"metadata,omitempty"`

	// schema of the variable.
	// +required
	Schema VariableSchema `json:"schema"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterclasses,shortName=cc,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="cluster.x-k8s.io/v1beta1 ClusterClass is deprecated; use cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of ClusterClass"

// ClusterClass is the Schema for the clusterclasses API at v1beta1.
type ClusterClass struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of ClusterClass.
	// +optional
	Spec ClusterClassSpec `json:"spec,omitempty"`
	// status is the observed state of ClusterClass.
	// +optional
	Status ClusterClassStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterClassList contains a list of ClusterClass.
type ClusterClassList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of ClusterClasses.
	Items []ClusterClass `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ClusterClass{}, &ClusterClassList{})
}
