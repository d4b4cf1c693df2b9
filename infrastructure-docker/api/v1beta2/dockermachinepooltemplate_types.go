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

// DockerMachinePoolTemplateSpec is the desired state of a DockerMachinePoolTemplate.
type DockerMachinePoolTemplateSpec struct {
	// template is cloned into one DockerMachinePool per MachinePool.
	// +required
	Template DockerMachinePoolTemplateResource `json:"template,omitempty,omitzero"`
}

// DockerMachinePoolTemplateResource is what a DockerMachinePool is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.metadata) || has(self.spec)",message="template must not be empty: write spec (spec: {} takes every default) or metadata (the labels and annotations of each clone)"
// +kubebuilder:validation:XValidation:rule="has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || self.spec == oldSelf.spec)",fieldPath=".spec",message="DockerMachinePoolTemplates are immutable: spec.template.spec cannot be edited in place; create a new DockerMachinePoolTemplate with the change and point the ClusterClass at it (spec.template.metadata may still be edited)"
type DockerMachinePoolTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DockerMachinePool.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of each cloned DockerMachinePool. providerID and providerIDList must stay
	// unset: each clone is a different pool and lists its own instances.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.providerIDList)",message="providerIDList must not be set in a template: every DockerMachinePool cloned from it lists its own instances"
	// +kubebuilder:validation:XValidation:rule="!has(self.providerID)",message="providerID must not be set in a template: every DockerMachinePool cloned from it is a different pool"
	Spec DockerMachinePoolSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachinepooltemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Cluster")].name`,description="Cluster owning this template"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachinePoolTemplate was created"

// DockerMachinePoolTemplate is the template a ClusterClass clones a DockerMachinePool from for
// each of its MachinePools.
type DockerMachinePoolTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the DockerMachinePoolTemplate.
	// +optional
	Spec DockerMachinePoolTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// DockerMachinePoolTemplateList is a list of DockerMachinePoolTemplates.
type DockerMachinePoolTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DockerMachinePoolTemplates.
	Items []DockerMachinePoolTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerMachinePoolTemplate{}, &DockerMachinePoolTemplateList{})
}
