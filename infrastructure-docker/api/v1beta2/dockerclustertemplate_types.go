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

// DockerClusterTemplateSpec is the desired state of a DockerClusterTemplate.
type DockerClusterTemplateSpec struct {
	// template is cloned into the DockerCluster of each Cluster built from a ClusterClass.
	// +required
	Template DockerClusterTemplateResource `json:"template,omitempty,omitzero"`
}

// DockerClusterTemplateResource is what a DockerCluster is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.metadata) || has(self.spec)",message="template must not be empty: write spec (spec: {} takes every default) or metadata (the labels and annotations of each clone)"
// +kubebuilder:validation:XValidation:rule="has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || self.spec == oldSelf.spec)",fieldPath=".spec",message="DockerClusterTemplates are immutable: spec.template.spec cannot be edited in place; create a new DockerClusterTemplate with the change and point the ClusterClass at it (spec.template.metadata may still be edited)"
type DockerClusterTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DockerCluster.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of each cloned DockerCluster.
	// +optional
	Spec DockerClusterSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockerclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerClusterTemplate was created"

// DockerClusterTemplate is the template a ClusterClass clones a DockerCluster from.
type DockerClusterTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the DockerClusterTemplate.
	// +optional
	Spec DockerClusterTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// DockerClusterTemplateList is a list of DockerClusterTemplates.
type DockerClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DockerClusterTemplates.
	Items []DockerClusterTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerClusterTemplate{}, &DockerClusterTemplateList{})
}
