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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MachineSetSpec is upstream's v1beta1 MachineSetSpec.
type MachineSetSpec struct {
	// clusterName is the name of the Cluster this object belongs to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	ClusterName string `json:"clusterName"`

	// replicas is the number of desired replicas.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// minReadySeconds is the minimum number of seconds for which a Node for a newly created machine should be ready before considering the replica available.
	// +optional
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// deletePolicy defines the policy used to identify nodes to delete when downscaling: Random, Newest or Oldest.
	// +optional
	// +kubebuilder:validation:Enum=Random;Newest;Oldest
	DeletePolicy string `json:"deletePolicy,omitempty"`

	// selector is a label query over machines that should match the replica count.
	// +required
	Selector metav1.LabelSelector `json:"selector"`

	// template is the object that describes the machine that will be created if insufficient replicas are detected.
	// +optional
	Template MachineTemplateSpec `json:"template,omitempty"`

	// machineNamingStrategy allows changing the naming pattern used when creating Machines.
	// +optional
	MachineNamingStrategy *MachineNamingStrategy `json:"machineNamingStrategy,omitempty"`
}

// MachineNamingStrategy allows changing the naming pattern used when creating Machines.
type MachineNamingStrategy struct {
	// template defines the template to use for generating the names of the Machine objects.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Template string `json:"template,omitempty"`
}

// MachineTemplateSpec describes the data needed to create a Machine from a template.
type MachineTemplateSpec struct {
	// metadata is the standard object's metadata.
	// +optional
	ObjectMeta `json:"metadata,omitempty"`

	// spec is the specification of the desired behavior of the machine.
	// +optional
	Spec MachineSpec `json:"spec,omitempty"`
}

// MachineSetStatus is upstream's v1beta1 MachineSetStatus.
type MachineSetStatus struct {
	// selector is the same as the label selector but in the string format.
	// +optional
	Selector string `json:"selector,omitempty"`

	// replicas is the most recently observed number of replicas.
	// +optional
	Replicas int32 `json:"replicas"`

	// fullyLabeledReplicas is the number of replicas that have labels matching the labels of the machine template.
	// +optional
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas"`

	// readyReplicas is the number of ready replicas for this MachineSet.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`

	// availableReplicas is the number of available replicas for this MachineSet.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas"`

	// observedGeneration reflects the generation of the most recently observed MachineSet.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// failureReason is set on a terminal problem. Deprecated: Capstan never sets it.
	// +optional
	FailureReason *string `json:"failureReason,omitempty"`

	// failureMessage is set on a terminal problem. Deprecated: Capstan never sets it.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// conditions defines current service state of the MachineSet (v1beta1 conditions).
	// +optional
	Conditions Conditions `json:"conditions,omitempty"`

	// v1beta2 groups all the fields that will be added or modified in MachineSet's status with the V1Beta2 version.
	// +optional
	V1Beta2 *MachineSetV1Beta2Status `json:"v1beta2,omitempty"`
}

// MachineSetV1Beta2Status groups the v1beta2 status fields of a MachineSet.
type MachineSetV1Beta2Status struct {
	// conditions represents the observations of the MachineSet's current state.
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
// +kubebuilder:resource:path=machinesets,shortName=ms,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="cluster.x-k8s.io/v1beta1 MachineSet is deprecated; use cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas",description="Total number of non-terminated machines targeted by this MachineSet"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of MachineSet"

// MachineSet is the Schema for the MachineSet API at v1beta1.
type MachineSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of MachineSet.
	// +optional
	Spec MachineSetSpec `json:"spec,omitempty"`
	// status is the observed state of MachineSet.
	// +optional
	Status MachineSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MachineSetList contains a list of MachineSet.
type MachineSetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of MachineSets.
	Items []MachineSet `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineSet{}, &MachineSetList{})
}
