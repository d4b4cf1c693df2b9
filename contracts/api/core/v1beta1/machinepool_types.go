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
)

// MachinePoolSpec is upstream's v1beta1 MachinePoolSpec.
type MachinePoolSpec struct {
	// clusterName is the name of the Cluster this object belongs to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	ClusterName string `json:"clusterName"`

	// replicas is the number of desired machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// template describes the machines that will be created.
	// +required
	Template MachineTemplateSpec `json:"template"`

	// minReadySeconds is the minimum number of seconds for which a newly created machine instances should be ready.
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// providerIDList are the identification IDs of machine instances provided by the provider.
	// +optional
	// +kubebuilder:validation:MaxItems=10000
	ProviderIDList []string `json:"providerIDList,omitempty"`

	// failureDomains is the list of failure domains this MachinePool should be attached to.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []string `json:"failureDomains,omitempty"`
}

// MachinePoolStatus is upstream's v1beta1 MachinePoolStatus.
type MachinePoolStatus struct {
	// nodeRefs will point to the corresponding Nodes if it they exist.
	// +optional
	NodeRefs []corev1.ObjectReference `json:"nodeRefs,omitempty"`

	// replicas is the most recently observed number of replicas.
	// +optional
	Replicas int32 `json:"replicas"`

	// readyReplicas is the number of ready replicas for this MachinePool.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of available replicas for this MachinePool.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// unavailableReplicas is the total number of unavailable machine instances targeted by this machine pool.
	// +optional
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty"`

	// failureReason indicates that there is a problem reconciling the state. Deprecated: Capstan never sets it.
	// +optional
	FailureReason *string `json:"failureReason,omitempty"`

	// failureMessage indicates that there is a problem reconciling the state. Deprecated: Capstan never sets it.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// phase represents the current phase of cluster actuation.
	// +optional
	Phase string `json:"phase,omitempty"`

	// bootstrapReady is the state of the bootstrap provider.
	// +optional
	BootstrapReady bool `json:"bootstrapReady"`

	// infrastructureReady is the state of the infrastructure provider.
	// +optional
	InfrastructureReady bool `json:"infrastructureReady"`

	// observedGeneration is the latest generation observed by the controller.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions define the current service state of the MachinePool (v1beta1 conditions).
	// +optional
	Conditions Conditions `json:"conditions,omitempty"`

	// v1beta2 groups all the fields that will be added or modified in MachinePool's status with the V1Beta2 version.
	// +optional
	V1Beta2 *MachinePoolV1Beta2Status `json:"v1beta2,omitempty"`
}

// MachinePoolV1Beta2Status groups the v1beta2 status fields of a MachinePool.
type MachinePoolV1Beta2Status struct {
	// conditions represents the observations of the MachinePool's current state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// readyReplicas is the number of ready replicas (v1beta2 meaning).
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of available replicas (v1beta2 meaning).
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// upToDateReplicas is the number of up-to-date replicas.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinepools,shortName=mp,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="cluster.x-k8s.io/v1beta1 MachinePool is deprecated; use cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster"
// +kubebuilder:printcolumn:name="Replicas",type="string",JSONPath=".status.replicas",description="MachinePool replicas count"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",description="MachinePool status such as Terminating/Pending/Provisioning/Running/Failed etc"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of MachinePool"

// MachinePool is the Schema for the MachinePool API at v1beta1.
type MachinePool struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of MachinePool.
	// +optional
	Spec MachinePoolSpec `json:"spec,omitempty"`
	// status is the observed state of MachinePool.
	// +optional
	Status MachinePoolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MachinePoolList contains a list of MachinePool.
type MachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of MachinePools.
	Items []MachinePool `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachinePool{}, &MachinePoolList{})
}
