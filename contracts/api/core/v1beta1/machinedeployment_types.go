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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MachineDeploymentSpec is upstream's v1beta1 MachineDeploymentSpec.
type MachineDeploymentSpec struct {
	// clusterName is the name of the Cluster this object belongs to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	ClusterName string `json:"clusterName"`

	// replicas is the number of desired machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// rolloutAfter is a field to indicate a rollout should be performed after the specified time.
	// +optional
	RolloutAfter *metav1.Time `json:"rolloutAfter,omitempty"`

	// selector is the label selector for machines.
	// +required
	Selector metav1.LabelSelector `json:"selector"`

	// template describes the machines that will be created.
	// +required
	Template MachineTemplateSpec `json:"template"`

	// strategy is the deployment strategy to use to replace existing machines with new ones.
	// +optional
	Strategy *MachineDeploymentStrategy `json:"strategy,omitempty"`

	// machineNamingStrategy allows changing the naming pattern used when creating Machines.
	// +optional
	MachineNamingStrategy *MachineNamingStrategy `json:"machineNamingStrategy,omitempty"`

	// minReadySeconds is the minimum number of seconds for which a newly created machine should be ready.
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// revisionHistoryLimit is the number of old MachineSets to retain to allow rollback.
	// Capstan keeps the value but does not act on it (as upstream's v1beta2).
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// paused indicates that the deployment is paused.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// progressDeadlineSeconds is the maximum time in seconds for a deployment to make progress.
	// Capstan keeps the value but does not act on it (as upstream's v1beta2).
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// MachineDeploymentStrategy describes how to replace existing machines with new ones.
type MachineDeploymentStrategy struct {
	// type of deployment: RollingUpdate or OnDelete.
	// +optional
	// +kubebuilder:validation:Enum=RollingUpdate;OnDelete
	Type string `json:"type,omitempty"`

	// rollingUpdate is the rolling update config params.
	// +optional
	RollingUpdate *MachineRollingUpdateDeployment `json:"rollingUpdate,omitempty"`

	// remediation controls the strategy of remediating unhealthy machines.
	// +optional
	Remediation *RemediationStrategy `json:"remediation,omitempty"`
}

// MachineRollingUpdateDeployment is used to control the desired behavior of rolling update.
type MachineRollingUpdateDeployment struct {
	// maxUnavailable is the maximum number of machines that can be unavailable during the update.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// maxSurge is the maximum number of machines that can be scheduled above the desired number of machines.
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// deletePolicy defines the policy used to identify nodes to delete when downscaling: Random, Newest or Oldest.
	// +optional
	// +kubebuilder:validation:Enum=Random;Newest;Oldest
	DeletePolicy *string `json:"deletePolicy,omitempty"`
}

// RemediationStrategy allows to define how the MachineSet can control scaling operations.
type RemediationStrategy struct {
	// maxInFlight determines how many in flight remediations should happen at the same time.
	// +optional
	MaxInFlight *intstr.IntOrString `json:"maxInFlight,omitempty"`
}

// MachineDeploymentStatus is upstream's v1beta1 MachineDeploymentStatus.
type MachineDeploymentStatus struct {
	// observedGeneration is the generation observed by the MachineDeployment controller.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// selector is the same as the label selector but in the string format.
	// +optional
	Selector string `json:"selector,omitempty"`

	// replicas is the total number of non-terminated machines targeted by this deployment.
	// +optional
	Replicas int32 `json:"replicas"`

	// updatedReplicas is the total number of machines that have the desired template spec.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`

	// readyReplicas is the total number of ready machines targeted by this deployment.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`

	// availableReplicas is the total number of available machines.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas"`

	// unavailableReplicas is the total number of unavailable machines targeted by this deployment.
	// +optional
	UnavailableReplicas int32 `json:"unavailableReplicas"`

	// phase represents the current phase of a MachineDeployment.
	// +optional
	Phase string `json:"phase,omitempty"`

	// conditions defines current service state of the MachineDeployment (v1beta1 conditions).
	// +optional
	Conditions Conditions `json:"conditions,omitempty"`

	// v1beta2 groups all the fields that will be added or modified in MachineDeployment's status with the V1Beta2 version.
	// +optional
	V1Beta2 *MachineDeploymentV1Beta2Status `json:"v1beta2,omitempty"`
}

// MachineDeploymentV1Beta2Status groups the v1beta2 status fields of a MachineDeployment.
type MachineDeploymentV1Beta2Status struct {
	// conditions represents the observations of the MachineDeployment's current state.
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
// +kubebuilder:resource:path=machinedeployments,shortName=md,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="cluster.x-k8s.io/v1beta1 MachineDeployment is deprecated; use cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas",description="Total number of non-terminated machines targeted by this MachineDeployment"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",description="MachineDeployment status such as ScalingUp/ScalingDown/Running/Failed/Unknown"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of MachineDeployment"

// MachineDeployment is the Schema for the MachineDeployment API at v1beta1.
type MachineDeployment struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of MachineDeployment.
	// +optional
	Spec MachineDeploymentSpec `json:"spec,omitempty"`
	// status is the observed state of MachineDeployment.
	// +optional
	Status MachineDeploymentStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MachineDeploymentList contains a list of MachineDeployment.
type MachineDeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of MachineDeployments.
	Items []MachineDeployment `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineDeployment{}, &MachineDeploymentList{})
}
