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

// DevMachineSpec is the desired state of a DevMachine.
type DevMachineSpec struct {
	// providerID is the node's provider ID, set by the controller; as a DockerMachine's.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// backend says what runs the node; Capstan offers docker only. Defaults to docker: {}.
	// +optional
	Backend DevMachineBackendSpec `json:"backend,omitempty,omitzero"`
}

// DevMachineBackendSpec picks the backend of a DevMachine.
// +kubebuilder:validation:XValidation:rule="!has(self.inMemory)",message="backend.inMemory is not offered: Capstan runs Dev machines on the docker backend only; write backend: {docker: {}} or leave backend out"
type DevMachineBackendSpec struct {
	// docker runs the node as a container, as a DockerMachine.
	// +optional
	Docker *DockerMachineBackendSpec `json:"docker,omitempty"`

	// inMemory is upstream's fake backend; refused.
	// +optional
	InMemory *InMemoryBackendSpec `json:"inMemory,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the DevMachine belongs to"
// +kubebuilder:printcolumn:name="Provider-ID",type="string",JSONPath=".spec.providerID",description="Provider ID of the node"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the node container is ready"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevMachine was created"

// DevMachine is upstream's DevMachine on the docker backend: a DockerMachine in another shape,
// reconciled by the same controller. Its status is a DockerMachine's.
type DevMachine struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the DevMachine.
	// +optional
	Spec DevMachineSpec `json:"spec,omitempty,omitzero"`
	// status is the observed state of the DevMachine.
	// +optional
	Status DockerMachineStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the DevMachine's conditions, for shared condition helpers.
func (m *DevMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }

// SetConditions replaces the DevMachine's conditions, for shared condition helpers.
func (m *DevMachine) SetConditions(conditions []metav1.Condition) { m.Status.Conditions = conditions }

// +kubebuilder:object:root=true

// DevMachineList is a list of DevMachines.
type DevMachineList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DevMachines.
	Items []DevMachine `json:"items"`
}

// DevMachineTemplateSpec is the desired state of a DevMachineTemplate.
type DevMachineTemplateSpec struct {
	// template is cloned into one DevMachine per Machine.
	// +required
	Template DevMachineTemplateResource `json:"template,omitempty,omitzero"`
}

// DevMachineTemplateResource is what a DevMachine is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || self.spec == oldSelf.spec)",fieldPath=".spec",message="DevMachineTemplates are immutable: spec.template.spec cannot be edited in place; create a new DevMachineTemplate with the change and point its owner (MachineDeployment, MachineSet, KubeadmControlPlane or ClusterClass) at it (spec.template.metadata may still be edited)"
type DevMachineTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DevMachine.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// spec is the spec of each cloned DevMachine. providerID must stay unset.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.providerID)",message="providerID must not be set in a template: every DevMachine cloned from it is a different node and gets its own provider ID"
	Spec DevMachineSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevMachineTemplate was created"

// DevMachineTemplate is the template KubeadmControlPlanes, MachineDeployments and MachineSets
// clone a DevMachine from for each of their Machines.
type DevMachineTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the DevMachineTemplate.
	// +optional
	Spec DevMachineTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// DevMachineTemplateList is a list of DevMachineTemplates.
type DevMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DevMachineTemplates.
	Items []DevMachineTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DevMachine{}, &DevMachineList{}, &DevMachineTemplate{}, &DevMachineTemplateList{})
}
