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
)

// ResourceBinding records what a ClusterResourceSet did with one of its resources in the
// binding's Cluster.
type ResourceBinding struct {
	// ResourceRef names the Secret or ConfigMap.
	ResourceRef `json:",inline"`

	// hash is "sha256:" and the hex SHA-256 of the resource's data values, concatenated in
	// sorted key order, when it was last applied. The Reconcile strategy applies the resource
	// again when the hash changes; ApplyOnce ignores it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Hash string `json:"hash,omitempty"`

	// lastAppliedTime is when the resource was last applied to the Cluster.
	// +optional
	LastAppliedTime metav1.Time `json:"lastAppliedTime,omitempty,omitzero"`

	// applied says whether the last attempt applied every object of the resource.
	// +required
	Applied *bool `json:"applied,omitempty"`
}

// ResourceSetBinding records what one ClusterResourceSet applied to the binding's Cluster.
type ResourceSetBinding struct {
	// clusterResourceSetName is the name of the ClusterResourceSet, in the binding's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ClusterResourceSetName string `json:"clusterResourceSetName,omitempty"`

	// resources are the ClusterResourceSet's resources and what was applied of each.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Resources []ResourceBinding `json:"resources,omitempty"`
}

// ClusterResourceSetBindingSpec defines the desired state of ClusterResourceSetBinding.
type ClusterResourceSetBindingSpec struct {
	// bindings are the ClusterResourceSets that selected the Cluster and what each applied.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Bindings []ResourceSetBinding `json:"bindings,omitempty"`

	// clusterName is the name of the Cluster, in the binding's namespace, this binding records
	// the resources of. It cannot be changed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'spec.clusterName is immutable (it was \"' + oldSelf + '\"): a ClusterResourceSetBinding belongs to one Cluster'"
	ClusterName string `json:"clusterName,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterresourcesetbindings,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster the binding belongs to"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ClusterResourceSetBinding was created"

// ClusterResourceSetBinding records, for one Cluster, which ClusterResourceSets applied which
// resources, with their hashes. It has the Cluster's name, is owned by those ClusterResourceSets
// and goes with the Cluster.
type ClusterResourceSetBinding struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ClusterResourceSetBinding.
	// +required
	Spec ClusterResourceSetBindingSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// ClusterResourceSetBindingList is a list of ClusterResourceSetBindings.
type ClusterResourceSetBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ClusterResourceSetBindings.
	Items []ClusterResourceSetBinding `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ClusterResourceSetBinding{}, &ClusterResourceSetBindingList{})
}
