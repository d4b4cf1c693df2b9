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

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
)

// ClusterResourceSetSpec is upstream's v1beta1 ClusterResourceSetSpec.
// +kubebuilder:validation:XValidation:rule="(has(self.clusterSelector.matchLabels) && size(self.clusterSelector.matchLabels) > 0) || (has(self.clusterSelector.matchExpressions) && size(self.clusterSelector.matchExpressions) > 0)",message="spec.clusterSelector is empty: an empty selector selects no Cluster; select the Clusters to apply the resources to, e.g. matchLabels: {cni: flannel}",fieldPath=".clusterSelector"
type ClusterResourceSetSpec struct {
	// clusterSelector is the label selector for Clusters, in the ClusterResourceSet's namespace,
	// the resources are applied to. It must not be empty and cannot be changed.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.clusterSelector is immutable: delete the ClusterResourceSet and create a new one with the new selector (resources already applied stay in the workload clusters)"
	ClusterSelector metav1.LabelSelector `json:"clusterSelector"`

	// resources is a list of Secrets/ConfigMaps where each contains 1 or more resources to be applied to remote clusters.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Resources []ResourceRef `json:"resources,omitempty"`

	// strategy is the strategy to be used during applying resources: ApplyOnce (the default) or
	// Reconcile. It cannot be changed.
	// +optional
	// +kubebuilder:default=ApplyOnce
	// +kubebuilder:validation:Enum=ApplyOnce;Reconcile
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'spec.strategy is immutable (it was ' + oldSelf + '): delete the ClusterResourceSet and create a new one with the new strategy'"
	Strategy string `json:"strategy,omitempty"`
}

// ResourceRef specifies a resource.
type ResourceRef struct {
	// name of the resource that is in the same namespace with ClusterResourceSet object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// kind of the resource. Supported kinds are: Secrets and ConfigMaps.
	// +required
	// +kubebuilder:validation:Enum=Secret;ConfigMap
	Kind string `json:"kind"`
}

// ClusterResourceSetStatus is upstream's v1beta1 ClusterResourceSetStatus.
type ClusterResourceSetStatus struct {
	// observedGeneration reflects the generation of the most recently observed ClusterResourceSet.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions defines current state of the ClusterResourceSet (v1beta1 conditions).
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`

	// v1beta2 groups all the fields that will be added or modified in ClusterResourceSet's status with the V1Beta2 version.
	// +optional
	V1Beta2 *ClusterResourceSetV1Beta2Status `json:"v1beta2,omitempty"`
}

// ClusterResourceSetV1Beta2Status groups the v1beta2 status fields of a ClusterResourceSet.
type ClusterResourceSetV1Beta2Status struct {
	// conditions represents the observations of a ClusterResourceSet's current state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterresourcesets,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="addons.cluster.x-k8s.io/v1beta1 ClusterResourceSet is deprecated; use addons.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of ClusterResourceSet"

// ClusterResourceSet is the Schema for the clusterresourcesets API at v1beta1.
type ClusterResourceSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of ClusterResourceSet.
	// +optional
	Spec ClusterResourceSetSpec `json:"spec,omitempty"`
	// status is the observed state of ClusterResourceSet.
	// +optional
	Status ClusterResourceSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourceSetList contains a list of ClusterResourceSet.
type ClusterResourceSetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of ClusterResourceSets.
	Items []ClusterResourceSet `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ClusterResourceSet{}, &ClusterResourceSetList{})
}
