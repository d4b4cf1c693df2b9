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

// DevMachinePoolSpec is the desired state of a DevMachinePool (v1beta2 only, as upstream).
type DevMachinePoolSpec struct {
	// providerID identifies the pool as a whole; as a DockerMachinePool's.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// providerIDList are the provider IDs of the pool's instances; as a DockerMachinePool's.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	ProviderIDList []string `json:"providerIDList,omitempty"`

	// backend says what runs the instances; Capstan offers docker only. Defaults to docker: {}.
	// +optional
	Backend DevMachinePoolBackendSpec `json:"backend,omitempty,omitzero"`
}

// DevMachinePoolBackendSpec picks the backend of a DevMachinePool.
// +kubebuilder:validation:XValidation:rule="!has(self.inMemory)",message="backend.inMemory is not offered: Capstan runs Dev machine pools on the docker backend only; write backend: {docker: {}} or leave backend out"
type DevMachinePoolBackendSpec struct {
	// docker runs each instance as a container, as a DockerMachinePool's template says.
	// +optional
	Docker *DockerMachinePoolMachineTemplate `json:"docker,omitempty"`

	// inMemory is upstream's fake backend; refused.
	// +optional
	InMemory *InMemoryBackendSpec `json:"inMemory,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devmachinepools,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the DevMachinePool belongs to"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas",description="Node containers of the pool"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevMachinePool was created"

// DevMachinePool is upstream's DevMachinePool on the docker backend: a DockerMachinePool in
// another shape. Its status is a DockerMachinePool's.
type DevMachinePool struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the DevMachinePool.
	// +optional
	Spec DevMachinePoolSpec `json:"spec,omitempty,omitzero"`
	// status is the observed state of the DevMachinePool.
	// +optional
	Status DockerMachinePoolStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the DevMachinePool's conditions, for shared condition helpers.
func (p *DevMachinePool) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions replaces the DevMachinePool's conditions, for shared condition helpers.
func (p *DevMachinePool) SetConditions(conditions []metav1.Condition) {
	p.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// DevMachinePoolList is a list of DevMachinePools.
type DevMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DevMachinePools.
	Items []DevMachinePool `json:"items"`
}

// DevMachinePoolTemplateSpec is the desired state of a DevMachinePoolTemplate.
type DevMachinePoolTemplateSpec struct {
	// template is cloned into the DevMachinePool of each MachinePool built from a ClusterClass.
	// +required
	Template DevMachinePoolTemplateResource `json:"template,omitempty,omitzero"`
}

// DevMachinePoolTemplateResource is what a DevMachinePool is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || self.spec == oldSelf.spec)",fieldPath=".spec",message="DevMachinePoolTemplates are immutable: spec.template.spec cannot be edited in place; create a new DevMachinePoolTemplate with the change and point its owner at it (spec.template.metadata may still be edited)"
type DevMachinePoolTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DevMachinePool.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// spec is the spec of each cloned DevMachinePool.
	// +optional
	Spec DevMachinePoolSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devmachinepooltemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevMachinePoolTemplate was created"

// DevMachinePoolTemplate is the template a ClusterClass clones a DevMachinePool from.
type DevMachinePoolTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the DevMachinePoolTemplate.
	// +optional
	Spec DevMachinePoolTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// DevMachinePoolTemplateList is a list of DevMachinePoolTemplates.
type DevMachinePoolTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DevMachinePoolTemplates.
	Items []DevMachinePoolTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DevMachinePool{}, &DevMachinePoolList{}, &DevMachinePoolTemplate{}, &DevMachinePoolTemplateList{})
}
