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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ClusterResourceSet's ResourcesApplied condition and its reasons (upstream's, plus
// ResourceNotFound).
const (
	// ClusterResourceSetResourcesAppliedCondition says whether every resource of the
	// ClusterResourceSet is applied to every matching Cluster.
	ClusterResourceSetResourcesAppliedCondition = "ResourcesApplied"

	// ClusterResourceSetResourcesAppliedReason is used when every resource is applied to every
	// matching Cluster (also when no Cluster matches).
	ClusterResourceSetResourcesAppliedReason = "Applied"

	// ClusterResourceSetResourcesNotAppliedReason is used when a resource could not be applied to a
	// matching Cluster yet: its manifests are invalid, applying them failed, the Cluster's control
	// plane is not initialized or its workload cluster cannot be reached.
	ClusterResourceSetResourcesNotAppliedReason = "NotApplied"

	// ClusterResourceSetResourcesAppliedWrongSecretTypeReason is used when a Secret in
	// spec.resources is not of type addons.cluster.x-k8s.io/resource-set.
	ClusterResourceSetResourcesAppliedWrongSecretTypeReason = "WrongSecretType"

	// ClusterResourceSetResourceNotFoundReason is used when a Secret or ConfigMap in
	// spec.resources does not exist. Upstream reports this as InternalError; Capstan names it,
	// because the fix is the user's (create it) and not the controller's.
	ClusterResourceSetResourceNotFoundReason = "ResourceNotFound"

	// ClusterResourceSetResourcesAppliedInternalErrorReason is used for unexpected errors of the
	// management cluster's API.
	ClusterResourceSetResourcesAppliedInternalErrorReason = clusterv1.InternalErrorReason
)

const (
	// ClusterResourceSetSecretType is the only type of Secret a ClusterResourceSet applies: a
	// Secret of another type (a kubeconfig, say) is never sent to a workload cluster by mistake.
	ClusterResourceSetSecretType corev1.SecretType = "addons.cluster.x-k8s.io/resource-set" //nolint:gosec // a type name, not a credential

	// ClusterResourceSetFinalizer lets the controller remove a deleted ClusterResourceSet from the
	// ClusterResourceSetBindings before it goes.
	ClusterResourceSetFinalizer = "addons.cluster.x-k8s.io"
)

// ClusterResourceSetSpec defines the desired state of ClusterResourceSet.
// +kubebuilder:validation:XValidation:rule="(has(self.clusterSelector.matchLabels) && size(self.clusterSelector.matchLabels) > 0) || (has(self.clusterSelector.matchExpressions) && size(self.clusterSelector.matchExpressions) > 0)",message="spec.clusterSelector is empty: an empty selector selects no Cluster; select the Clusters to apply the resources to, e.g. matchLabels: {cni: flannel}",fieldPath=".clusterSelector"
type ClusterResourceSetSpec struct {
	// clusterSelector selects the Clusters, in the ClusterResourceSet's namespace, the resources
	// are applied to. It must not be empty (an empty selector would select nothing) and cannot
	// be changed.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.clusterSelector is immutable: delete the ClusterResourceSet and create a new one with the new selector (resources already applied stay in the workload clusters)"
	ClusterSelector clusterv1.LabelSelector `json:"clusterSelector,omitempty,omitzero"`

	// resources are the Secrets and ConfigMaps, in the ClusterResourceSet's namespace, whose data
	// is applied to each selected Cluster: every value is one or more YAML documents or a JSON
	// list of Kubernetes objects, applied in the order of the list and of the sorted data keys.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Resources []ResourceRef `json:"resources,omitempty"`

	// strategy says when resources are applied: ApplyOnce (the default) applies each resource
	// to a Cluster once; Reconcile applies it again whenever its content changes. It cannot be
	// changed: delete and re-create the ClusterResourceSet to switch.
	// +optional
	// +kubebuilder:default=ApplyOnce
	// +kubebuilder:validation:Enum=ApplyOnce;Reconcile
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'spec.strategy is immutable (it was ' + oldSelf + '): delete the ClusterResourceSet and create a new one with the new strategy'"
	Strategy string `json:"strategy,omitempty"`
}

// ClusterResourceSetResourceKind is the kind of a resource of a ClusterResourceSet.
type ClusterResourceSetResourceKind string

// The kinds a ClusterResourceSet resource may have.
const (
	SecretClusterResourceSetResourceKind    ClusterResourceSetResourceKind = "Secret"
	ConfigMapClusterResourceSetResourceKind ClusterResourceSetResourceKind = "ConfigMap"
)

// ResourceRef names a Secret or ConfigMap in the ClusterResourceSet's namespace.
type ResourceRef struct {
	// name of the Secret or ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`

	// kind of the resource: Secret (of type addons.cluster.x-k8s.io/resource-set) or ConfigMap.
	// +required
	// +kubebuilder:validation:Enum=Secret;ConfigMap
	Kind string `json:"kind,omitempty"`
}

// ClusterResourceSetStrategy says when a ClusterResourceSet applies its resources.
type ClusterResourceSetStrategy string

const (
	// ClusterResourceSetStrategyApplyOnce applies each resource to a Cluster once; later changes
	// of the resource are not applied.
	ClusterResourceSetStrategyApplyOnce ClusterResourceSetStrategy = "ApplyOnce"
	// ClusterResourceSetStrategyReconcile applies a resource again whenever the hash of its data
	// changes.
	ClusterResourceSetStrategyReconcile ClusterResourceSetStrategy = "Reconcile"
)

// ClusterResourceSetStatus defines the observed state of ClusterResourceSet.
// +kubebuilder:validation:MinProperties=1
type ClusterResourceSetStatus struct {
	// conditions are the observations of the ClusterResourceSet's state. Known types:
	// ResourcesApplied, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterresourcesets,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Applied",type="string",JSONPath=`.status.conditions[?(@.type=="ResourcesApplied")].status`,description="Whether every resource is applied to every selected Cluster"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ClusterResourceSet was created"

// ClusterResourceSet applies the manifests held in Secrets and ConfigMaps to every Cluster its
// selector matches, e.g. a CNI to each new cluster. For anything more (upgrades, removal,
// templating) use an addon provider.
type ClusterResourceSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ClusterResourceSet.
	// +required
	Spec ClusterResourceSetSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the ClusterResourceSet.
	// +optional
	Status ClusterResourceSetStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the ClusterResourceSet's conditions, for shared condition helpers.
func (c *ClusterResourceSet) GetConditions() []metav1.Condition {
	return c.Status.Conditions
}

// SetConditions replaces the ClusterResourceSet's conditions, for shared condition helpers.
func (c *ClusterResourceSet) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// ClusterResourceSetList is a list of ClusterResourceSets.
type ClusterResourceSetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ClusterResourceSets.
	Items []ClusterResourceSet `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ClusterResourceSet{}, &ClusterResourceSetList{})
}
