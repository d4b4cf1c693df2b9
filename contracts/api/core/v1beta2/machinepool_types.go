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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// MachinePoolFinalizer is added by the MachinePool controller so that it can delete the pool's Nodes
	// and provider objects before the MachinePool goes away.
	MachinePoolFinalizer = "machinepool.cluster.x-k8s.io"
)

// MachinePoolPhase is a coarse, human-oriented summary of a MachinePool's lifecycle. Controllers must
// not act on it.
type MachinePoolPhase string

const (
	// MachinePoolPhasePending is set when the MachinePool is first seen.
	MachinePoolPhasePending = MachinePoolPhase("Pending")

	// MachinePoolPhaseProvisioning is set while the pool's infrastructure is created or updated.
	MachinePoolPhaseProvisioning = MachinePoolPhase("Provisioning")

	// MachinePoolPhaseProvisioned is set once the pool's infrastructure exists.
	MachinePoolPhaseProvisioned = MachinePoolPhase("Provisioned")

	// MachinePoolPhaseRunning is set when the pool's instances are Ready Nodes.
	MachinePoolPhaseRunning = MachinePoolPhase("Running")

	// MachinePoolPhaseScalingUp is set while the pool scales up.
	MachinePoolPhaseScalingUp = MachinePoolPhase("ScalingUp")

	// MachinePoolPhaseScalingDown is set while the pool scales down.
	MachinePoolPhaseScalingDown = MachinePoolPhase("ScalingDown")

	// MachinePoolPhaseScaling is set while an external autoscaler scales the pool.
	MachinePoolPhaseScaling = MachinePoolPhase("Scaling")

	// MachinePoolPhaseDeleting is set while the pool is being deleted.
	MachinePoolPhaseDeleting = MachinePoolPhase("Deleting")

	// MachinePoolPhaseFailed is kept for compatibility only: v1beta2 controllers never set it.
	MachinePoolPhaseFailed = MachinePoolPhase("Failed")

	// MachinePoolPhaseUnknown is returned when the phase cannot be determined.
	MachinePoolPhaseUnknown = MachinePoolPhase("Unknown")
)

// MachinePoolSpec defines the desired state of MachinePool.
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec) || !has(self.template.spec.clusterName) || self.template.spec.clusterName == self.clusterName",messageExpression="'spec.template.spec.clusterName \"' + self.template.spec.clusterName + '\" differs from spec.clusterName \"' + self.clusterName + '\": the instances of a MachinePool belong to the same Cluster as the MachinePool; set both to the same name'"
type MachinePoolSpec struct {
	// clusterName is the name of the Cluster this MachinePool belongs to, in the same namespace.
	// It cannot be changed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'clusterName is immutable (it was \"' + oldSelf + '\"): a MachinePool cannot move to another Cluster; create a new MachinePool in the target Cluster instead'"
	ClusterName string `json:"clusterName,omitempty"`

	// replicas is the number of instances wanted. When unset it is defaulted at admission to the
	// cluster-autoscaler's min-size annotation when its min/max size annotations are set, else 1; to let an
	// external autoscaler own the number, set the cluster.x-k8s.io/replicas-managed-by annotation.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// template describes the instances of the pool: the bootstrap data they share and the
	// infrastructure object (an InfraMachinePool) that manages them.
	// +required
	Template MachineTemplateSpec `json:"template,omitempty,omitzero"`

	// providerIDList are the provider IDs of the pool's instances, filled in by the infrastructure
	// provider; they match the spec.providerID of the corresponding Nodes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	ProviderIDList []string `json:"providerIDList,omitempty"`

	// failureDomains are the failure domains the pool's instances may be placed in; each must be the
	// name of one of the Cluster's status.failureDomains.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	FailureDomains []string `json:"failureDomains,omitempty"`
}

// MachinePoolStatus defines the observed state of MachinePool.
// +kubebuilder:validation:MinProperties=1
type MachinePoolStatus struct {
	// conditions are the observations of the MachinePool's state. Known types: Available,
	// BootstrapConfigReady, InfrastructureReady, ScalingUp, ScalingDown, Deleting, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the MachinePool's first provisioning.
	// These fields are part of the provider contract.
	// +optional
	Initialization MachinePoolInitializationStatus `json:"initialization,omitempty,omitzero"`

	// nodeRefs are the workload-cluster Nodes of the pool's instances, matched through providerIDList.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10000
	NodeRefs []corev1.ObjectReference `json:"nodeRefs,omitempty"`

	// replicas is the number of instances the pool currently has.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of the pool's instances that are ready.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of the pool's instances that are available.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// upToDateReplicas is the number of the pool's instances that match the template.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// phase is a human-oriented summary of the MachinePool's lifecycle; do not build logic on it.
	// +optional
	// +kubebuilder:validation:Enum=Pending;Provisioning;Provisioned;Running;ScalingUp;ScalingDown;Scaling;Deleting;Failed;Unknown
	Phase string `json:"phase,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// MachinePoolInitializationStatus records the one-way milestones of a MachinePool's first provisioning.
// +kubebuilder:validation:MinProperties=1
type MachinePoolInitializationStatus struct {
	// infrastructureProvisioned becomes true when the InfraMachinePool reports
	// status.initialization.provisioned; it never goes back to false.
	// +optional
	InfrastructureProvisioned *bool `json:"infrastructureProvisioned,omitempty"`

	// bootstrapDataSecretCreated becomes true when the BootstrapConfig reports
	// status.initialization.dataSecretCreated; it never goes back to false.
	// +optional
	BootstrapDataSecretCreated *bool `json:"bootstrapDataSecretCreated,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinepools,shortName=mp,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster the MachinePool belongs to"
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=".spec.replicas",description="Desired number of instances"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=".status.replicas",description="Current number of instances"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyReplicas",description="Instances that are ready"
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=".status.availableReplicas",description="Instances that are available"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",description="MachinePool phase: Pending, Provisioning, Running, Scaling..."
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the MachinePool was created"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.template.spec.version",description="Kubernetes version of the MachinePool's instances"

// MachinePool is a group of identical instances that the infrastructure provider manages as one unit
// (e.g. a cloud autoscaling group), as opposed to a MachineSet's individually managed Machines.
type MachinePool struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MachinePool.
	// +required
	Spec MachinePoolSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the MachinePool.
	// +optional
	Status MachinePoolStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the MachinePool's conditions, for shared condition helpers.
func (m *MachinePool) GetConditions() []metav1.Condition {
	return m.Status.Conditions
}

// SetConditions replaces the MachinePool's conditions, for shared condition helpers.
func (m *MachinePool) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// MachinePoolList is a list of MachinePools.
type MachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the MachinePools.
	Items []MachinePool `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachinePool{}, &MachinePoolList{})
}
