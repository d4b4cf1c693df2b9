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

// DockerMachineTemplateSpec is the desired state of a DockerMachineTemplate.
type DockerMachineTemplateSpec struct {
	// template is cloned into one DockerMachine per Machine.
	// +required
	Template DockerMachineTemplateResource `json:"template,omitempty,omitzero"`
}

// DockerMachineTemplateResource is what a DockerMachine is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.metadata) || has(self.spec)",message="template must not be empty: write spec (spec: {} takes every default) or metadata (the labels and annotations of each clone)"
// +kubebuilder:validation:XValidation:rule="has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || self.spec == oldSelf.spec)",fieldPath=".spec",message="DockerMachineTemplates are immutable: spec.template.spec cannot be edited in place; create a new DockerMachineTemplate with the change and point its owner (MachineDeployment, MachineSet, KubeadmControlPlane or ClusterClass) at it (spec.template.metadata may still be edited)"
type DockerMachineTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DockerMachine.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of each cloned DockerMachine. providerID must stay unset: each clone
	// gets its own.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.providerID)",message="providerID must not be set in a template: every DockerMachine cloned from it is a different node and gets its own provider ID"
	Spec DockerMachineSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Cluster")].name`,description="Cluster owning this template"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachineTemplate was created"

// DockerMachineTemplate is the template KubeadmControlPlanes, MachineDeployments and MachineSets
// clone a DockerMachine from for each of their Machines.
type DockerMachineTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the DockerMachineTemplate.
	// +optional
	Spec DockerMachineTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// DockerMachineTemplateList is a list of DockerMachineTemplates.
type DockerMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DockerMachineTemplates.
	Items []DockerMachineTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerMachineTemplate{}, &DockerMachineTemplateList{})
}
