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

// ResourceBinding shows the status of a resource that belongs to a ClusterResourceSet matched by the owner cluster of the ClusterResourceSetBinding object.
type ResourceBinding struct {
	// ResourceRef specifies a resource.
	ResourceRef `json:",inline"`

	// hash is the hash of a resource's data. This can be used to decide if a resource is changed.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Hash string `json:"hash,omitempty"`

	// lastAppliedTime identifies when this resource was last applied to the cluster.
	// +optional
	LastAppliedTime *metav1.Time `json:"lastAppliedTime,omitempty"`

	// applied is to track if a resource is applied to the cluster or not.
	// +required
	Applied bool `json:"applied"`
}

// ResourceSetBinding keeps info on all of the resources in a ClusterResourceSet.
type ResourceSetBinding struct {
	// clusterResourceSetName is the name of the ClusterResourceSet that is applied to the owner cluster of the binding.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ClusterResourceSetName string `json:"clusterResourceSetName"`

	// resources is a list of resources that the ClusterResourceSet has.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Resources []ResourceBinding `json:"resources,omitempty"`
}

// ClusterResourceSetBindingSpec defines the desired state of ClusterResourceSetBinding.
type ClusterResourceSetBindingSpec struct {
	// bindings is a list of ClusterResourceSets and their resources.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Bindings []*ResourceSetBinding `json:"bindings,omitempty"`

	// clusterName is the name of the Cluster this binding applies to. It cannot be changed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'spec.clusterName is immutable (it was \"' + oldSelf + '\"): a ClusterResourceSetBinding belongs to one Cluster'"
	ClusterName string `json:"clusterName,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterresourcesetbindings,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="addons.cluster.x-k8s.io/v1beta1 ClusterResourceSetBinding is deprecated; use addons.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of ClusterResourceSetBinding"

// ClusterResourceSetBinding lists all matching ClusterResourceSets with the cluster it belongs to (v1beta1).
type ClusterResourceSetBinding struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of ClusterResourceSetBinding.
	// +optional
	Spec ClusterResourceSetBindingSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourceSetBindingList contains a list of ClusterResourceSetBinding.
type ClusterResourceSetBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of ClusterResourceSetBindings.
	Items []ClusterResourceSetBinding `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ClusterResourceSetBinding{}, &ClusterResourceSetBindingList{})
}
