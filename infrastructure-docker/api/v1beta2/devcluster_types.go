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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The Dev kinds are upstream's backend-pluggable successors of the Docker kinds (same group,
// same finalizers): the Docker settings move under spec.backend.docker. Capstan offers the
// docker backend only, implemented by the Docker kinds' controllers; upstream's in-memory fake
// backend (spec.backend.inMemory) is refused at admission.

// InMemoryBackendSpec stands for upstream's in-memory backend, which Capstan does not offer.
// The schema keeps whatever is written so that admission can refuse it with a clear message
// instead of pruning it silently.
// +kubebuilder:pruning:PreserveUnknownFields
type InMemoryBackendSpec struct{}

// DevClusterSpec is the desired state of a DevCluster.
type DevClusterSpec struct {
	// controlPlaneEndpoint is where the workload cluster's API server is reached from the
	// management side; as a DockerCluster's.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// backend says what runs the cluster; Capstan offers docker only. Defaults to docker: {}.
	// +optional
	Backend DevClusterBackendSpec `json:"backend,omitempty,omitzero"`
}

// DevClusterBackendSpec picks the backend of a DevCluster.
// +kubebuilder:validation:XValidation:rule="!has(self.inMemory)",message="backend.inMemory is not offered: Capstan runs Dev clusters on the docker backend only; write backend: {docker: {}} or leave backend out"
type DevClusterBackendSpec struct {
	// docker runs the cluster's load balancer as a container, as a DockerCluster.
	// +optional
	Docker *DockerClusterBackendSpec `json:"docker,omitempty"`

	// inMemory is upstream's fake backend; refused.
	// +optional
	InMemory *InMemoryBackendSpec `json:"inMemory,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the DevCluster belongs to"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the load balancer is ready"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevCluster was created"

// DevCluster is upstream's DevCluster on the docker backend: a DockerCluster in another shape,
// reconciled by the same controller. Its status is a DockerCluster's.
type DevCluster struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the DevCluster.
	// +optional
	Spec DevClusterSpec `json:"spec,omitempty,omitzero"`
	// status is the observed state of the DevCluster.
	// +optional
	Status DockerClusterStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the DevCluster's conditions, for shared condition helpers.
func (c *DevCluster) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions replaces the DevCluster's conditions, for shared condition helpers.
func (c *DevCluster) SetConditions(conditions []metav1.Condition) { c.Status.Conditions = conditions }

// +kubebuilder:object:root=true

// DevClusterList is a list of DevClusters.
type DevClusterList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DevClusters.
	Items []DevCluster `json:"items"`
}

// DevClusterTemplateSpec is the desired state of a DevClusterTemplate.
type DevClusterTemplateSpec struct {
	// template is cloned into the DevCluster of each Cluster built from a ClusterClass.
	// +required
	Template DevClusterTemplateResource `json:"template,omitempty,omitzero"`
}

// DevClusterTemplateResource is what a DevCluster is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || self.spec == oldSelf.spec)",fieldPath=".spec",message="DevClusterTemplates are immutable: spec.template.spec cannot be edited in place; create a new DevClusterTemplate with the change and point the ClusterClass at it (spec.template.metadata may still be edited)"
type DevClusterTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DevCluster.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// spec is the spec of each cloned DevCluster.
	// +optional
	Spec DevClusterSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevClusterTemplate was created"

// DevClusterTemplate is the template a ClusterClass clones a DevCluster from.
type DevClusterTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the DevClusterTemplate.
	// +optional
	Spec DevClusterTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// DevClusterTemplateList is a list of DevClusterTemplates.
type DevClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DevClusterTemplates.
	Items []DevClusterTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DevCluster{}, &DevClusterList{}, &DevClusterTemplate{}, &DevClusterTemplateList{})
}
