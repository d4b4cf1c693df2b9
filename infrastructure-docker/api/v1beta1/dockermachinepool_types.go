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

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// DockerMachinePoolSpec is upstream's v1beta1 DockerMachinePoolSpec.
type DockerMachinePoolSpec struct {
	// template is what each instance's node container is made from.
	// +optional
	Template DockerMachinePoolMachineTemplate `json:"template,omitempty"`

	// providerID identifies the pool as a whole.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// providerIDList are the provider IDs of the pool's instances.
	// +optional
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MaxLength=512
	ProviderIDList []string `json:"providerIDList,omitempty"`
}

// DockerMachinePoolMachineTemplate is the node container of each instance of a pool.
type DockerMachinePoolMachineTemplate struct {
	// customImage is the node image to run instead of the default one.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	CustomImage string `json:"customImage,omitempty"`

	// preLoadImages are images of the Docker Engine to import into each instance's containerd.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MaxLength=512
	PreLoadImages []string `json:"preLoadImages,omitempty"`

	// extraMounts are host paths or volumes mounted into each node container.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	ExtraMounts []Mount `json:"extraMounts,omitempty"`
}

// DockerMachinePoolStatus is upstream's v1beta1 DockerMachinePoolStatus. It has no slot for
// the v1beta2 conditions: they live in the conversion data, as upstream.
type DockerMachinePoolStatus struct {
	// ready is true once the pool first had all its instances created and bootstrapped.
	// +optional
	Ready bool `json:"ready"`

	// replicas is the number of the pool's node containers that exist.
	// +optional
	Replicas int32 `json:"replicas"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// instances are the pool's node containers.
	// +optional
	// +kubebuilder:validation:MaxItems=10000
	Instances []DockerMachinePoolInstanceStatus `json:"instances,omitempty"`

	// conditions are the v1beta1 conditions; Capstan sets none.
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`

	// infrastructureMachineKind is upstream's kind of per-instance machines; Capstan has none
	// and keeps what is written.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	InfrastructureMachineKind string `json:"infrastructureMachineKind,omitempty"`
}

// DockerMachinePoolInstanceStatus is one node container of a pool.
type DockerMachinePoolInstanceStatus struct {
	// addresses of the node container.
	// +optional
	Addresses clusterv1.MachineAddresses `json:"addresses,omitempty"`

	// instanceName is the node container's name.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	InstanceName string `json:"instanceName,omitempty"`

	// version is upstream's Kubernetes version of the instance; Capstan keeps what is written.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Version *string `json:"version,omitempty"`

	// providerID is the instance's provider ID.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ProviderID *string `json:"providerID,omitempty"`

	// ready is true when the instance is bootstrapped and its Node carries the providerID.
	// +optional
	Ready bool `json:"ready"`

	// bootstrapped is true once the bootstrap data ran to the end in the container.
	// +optional
	Bootstrapped bool `json:"bootstrapped,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachinepools,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DockerMachinePool is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachinePool was created"

// DockerMachinePool is upstream's v1beta1 DockerMachinePool.
type DockerMachinePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DockerMachinePoolSpec   `json:"spec,omitempty"`
	Status DockerMachinePoolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DockerMachinePoolList is a list of DockerMachinePools.
type DockerMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DockerMachinePool `json:"items"`
}

// DockerMachinePoolTemplateSpec is upstream's v1beta1 DockerMachinePoolTemplateSpec.
type DockerMachinePoolTemplateSpec struct {
	Template DockerMachinePoolTemplateResource `json:"template"`
}

// DockerMachinePoolTemplateResource is what a DockerMachinePool is cloned from.
type DockerMachinePoolTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DockerMachinePool.
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	Spec       DockerMachinePoolSpec     `json:"spec"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachinepooltemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DockerMachinePoolTemplate is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachinePoolTemplate was created"

// DockerMachinePoolTemplate is upstream's v1beta1 DockerMachinePoolTemplate.
type DockerMachinePoolTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DockerMachinePoolTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// DockerMachinePoolTemplateList is a list of DockerMachinePoolTemplates.
type DockerMachinePoolTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DockerMachinePoolTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerMachinePool{}, &DockerMachinePoolList{}, &DockerMachinePoolTemplate{}, &DockerMachinePoolTemplateList{})
}
