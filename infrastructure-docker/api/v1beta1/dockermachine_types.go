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

// DockerMachineSpec is upstream's v1beta1 DockerMachineSpec.
type DockerMachineSpec struct {
	// providerID is the node's provider ID, "docker:////<container name>".
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ProviderID *string `json:"providerID,omitempty"`

	// The Docker settings, which a DevMachine holds under spec.backend.docker.
	DockerMachineBackendSpec `json:",inline"`
}

// DockerMachineBackendSpec is the Docker part of a DockerMachine's spec.
type DockerMachineBackendSpec struct {
	// customImage is the node image to run instead of the default one.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	CustomImage string `json:"customImage,omitempty"`

	// preLoadImages are images of the Docker Engine to import into the node's containerd.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MaxLength=512
	PreLoadImages []string `json:"preLoadImages,omitempty"`

	// extraMounts are host paths or volumes mounted into the node container.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	ExtraMounts []Mount `json:"extraMounts,omitempty"`

	// bootstrapped is upstream's deprecated spec flag; Capstan keeps what is written and
	// reports bootstrapping through conditions.
	// +optional
	Bootstrapped bool `json:"bootstrapped,omitempty"`

	// bootstrapTimeout bounds the execution of the bootstrap data in the container.
	// +optional
	BootstrapTimeout *metav1.Duration `json:"bootstrapTimeout,omitempty"`
}

// Mount is a host path or volume mounted into a node container.
type Mount struct {
	// containerPath is where the mount appears in the container.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ContainerPath string `json:"containerPath,omitempty"`

	// hostPath is the path on the Docker host; unset mounts an anonymous volume.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	HostPath string `json:"hostPath,omitempty"`

	// readOnly mounts the path read-only.
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`
}

// DockerMachineStatus is upstream's v1beta1 DockerMachineStatus.
type DockerMachineStatus struct {
	// ready is true once the node container runs and spec.providerID is set.
	// +optional
	Ready bool `json:"ready"`

	// loadBalancerConfigured is upstream's flag for a control-plane node added to the load
	// balancer; Capstan keeps what is written.
	// +optional
	LoadBalancerConfigured bool `json:"loadBalancerConfigured,omitempty"`

	// addresses of the node container.
	// +optional
	Addresses clusterv1.MachineAddresses `json:"addresses,omitempty"`

	// conditions are the v1beta1 conditions; Capstan sets none (see status.v1beta2.conditions).
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`

	// v1beta2 groups the v1beta2 status fields.
	// +optional
	V1Beta2 *V1Beta2Status `json:"v1beta2,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DockerMachine is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachine was created"

// DockerMachine is upstream's v1beta1 DockerMachine.
type DockerMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DockerMachineSpec   `json:"spec,omitempty"`
	Status DockerMachineStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DockerMachineList is a list of DockerMachines.
type DockerMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DockerMachine `json:"items"`
}

// DockerMachineTemplateSpec is upstream's v1beta1 DockerMachineTemplateSpec.
type DockerMachineTemplateSpec struct {
	Template DockerMachineTemplateResource `json:"template"`
}

// DockerMachineTemplateResource is what a DockerMachine is cloned from.
type DockerMachineTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DockerMachine.
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	Spec       DockerMachineSpec         `json:"spec"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DockerMachineTemplate is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachineTemplate was created"

// DockerMachineTemplate is upstream's v1beta1 DockerMachineTemplate.
type DockerMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DockerMachineTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// DockerMachineTemplateList is a list of DockerMachineTemplates.
type DockerMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DockerMachineTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerMachine{}, &DockerMachineList{}, &DockerMachineTemplate{}, &DockerMachineTemplateList{})
}
