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

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// KubeadmControlPlaneTemplateSpec is the desired state of a KubeadmControlPlaneTemplate.
type KubeadmControlPlaneTemplateSpec struct {
	// template is what a KubeadmControlPlane is created from.
	// +required
	Template KubeadmControlPlaneTemplateResource `json:"template,omitempty,omitzero"`
}

// KubeadmControlPlaneTemplateResource is what a KubeadmControlPlane is created from.
// +kubebuilder:validation:XValidation:rule="has(self.metadata) || has(self.spec)",message="must set at least one of metadata or spec, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneTemplateResource struct {
	// metadata holds the labels and annotations put on the created KubeadmControlPlane.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the created KubeadmControlPlane, without the fields the creator decides
	// (replicas, version and the infrastructure reference).
	// +optional
	Spec KubeadmControlPlaneTemplateResourceSpec `json:"spec,omitempty,omitzero"`
}

// KubeadmControlPlaneTemplateResourceSpec is KubeadmControlPlaneSpec without replicas, version,
// machineTemplate.spec.infrastructureRef and machineTemplate.spec.readinessGates, which whoever
// creates the KubeadmControlPlane from the template (a ClusterClass's topology) sets.
// +kubebuilder:validation:XValidation:rule="has(self.machineTemplate) || has(self.kubeadmConfigSpec) || has(self.rollout) || has(self.remediation) || has(self.machineNaming)",message="must set at least one of machineTemplate, kubeadmConfigSpec, rollout, remediation or machineNaming, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneTemplateResourceSpec struct {
	// machineTemplate describes the control plane Machines.
	// +optional
	MachineTemplate KubeadmControlPlaneTemplateMachineTemplate `json:"machineTemplate,omitempty,omitzero"`

	// kubeadmConfigSpec is the bootstrap configuration of the control plane Machines.
	// +optional
	KubeadmConfigSpec bootstrapv1.KubeadmConfigSpec `json:"kubeadmConfigSpec,omitempty,omitzero"`

	// rollout configures when and how control plane Machines are replaced. When omitted it
	// defaults to a RollingUpdate with maxSurge 1.
	// +optional
	// +kubebuilder:default={strategy: {type: "RollingUpdate", rollingUpdate: {maxSurge: 1}}}
	Rollout KubeadmControlPlaneRolloutSpec `json:"rollout,omitempty,omitzero"`

	// remediation configures how unhealthy control plane Machines are remediated.
	// +optional
	Remediation KubeadmControlPlaneRemediationSpec `json:"remediation,omitempty,omitzero"`

	// machineNaming sets how new control plane Machines are named.
	// +optional
	MachineNaming MachineNamingSpec `json:"machineNaming,omitempty,omitzero"`
}

// KubeadmControlPlaneTemplateMachineTemplate describes the control plane Machines of a template.
// +kubebuilder:validation:XValidation:rule="has(self.metadata) || has(self.spec)",message="must set at least one of metadata or spec, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneTemplateMachineTemplate struct {
	// metadata holds labels and annotations put on the control plane Machines.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec describes the control plane Machines.
	// +optional
	Spec KubeadmControlPlaneTemplateMachineTemplateSpec `json:"spec,omitempty,omitzero"`
}

// KubeadmControlPlaneTemplateMachineTemplateSpec describes the control plane Machines of a template.
// +kubebuilder:validation:XValidation:rule="has(self.deletion) || has(self.taints)",message="must set at least one of deletion or taints, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneTemplateMachineTemplateSpec struct {
	// deletion bounds the time spent on each step of a control plane Machine's deletion.
	// +optional
	Deletion KubeadmControlPlaneMachineTemplateDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints are the Node taints Cluster API manages on the control plane Nodes, at most 64.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmcontrolplanetemplates,shortName=kcpt,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Cluster")].name`,description="Cluster owning this template"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the KubeadmControlPlaneTemplate was created"

// KubeadmControlPlaneTemplate is a template KubeadmControlPlanes are created from.
type KubeadmControlPlaneTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the KubeadmControlPlaneTemplate.
	// +optional
	Spec KubeadmControlPlaneTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// KubeadmControlPlaneTemplateList is a list of KubeadmControlPlaneTemplates.
type KubeadmControlPlaneTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the KubeadmControlPlaneTemplates.
	Items []KubeadmControlPlaneTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &KubeadmControlPlaneTemplate{}, &KubeadmControlPlaneTemplateList{})
}
