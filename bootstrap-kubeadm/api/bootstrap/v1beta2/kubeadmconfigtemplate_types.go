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

// KubeadmConfigTemplateSpec is the desired state of a KubeadmConfigTemplate.
type KubeadmConfigTemplateSpec struct {
	// template is cloned into one KubeadmConfig per Machine.
	// +required
	Template KubeadmConfigTemplateResource `json:"template,omitempty,omitzero"`
}

// KubeadmConfigTemplateResource is what a KubeadmConfig is cloned from.
// +kubebuilder:validation:XValidation:rule="has(self.metadata) || has(self.spec)",message="must set at least one of metadata or spec, or be left out instead of written as an empty object ({})"
type KubeadmConfigTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned KubeadmConfig.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of each cloned KubeadmConfig.
	// +optional
	Spec KubeadmConfigSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmconfigtemplates,shortName=kct,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Cluster")].name`,description="Cluster owning this template"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the KubeadmConfigTemplate was created"

// KubeadmConfigTemplate is the template MachineDeployments, MachineSets and MachinePools clone a
// KubeadmConfig from for each of their Machines.
type KubeadmConfigTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the KubeadmConfigTemplate.
	// +optional
	Spec KubeadmConfigTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// KubeadmConfigTemplateList is a list of KubeadmConfigTemplates.
type KubeadmConfigTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the KubeadmConfigTemplates.
	Items []KubeadmConfigTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &KubeadmConfigTemplate{}, &KubeadmConfigTemplateList{})
}
