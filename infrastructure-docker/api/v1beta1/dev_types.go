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

// InMemoryBackendSpec stands for upstream's in-memory backend, which Capstan does not offer;
// v1beta2 admission refuses it.
// +kubebuilder:pruning:PreserveUnknownFields
type InMemoryBackendSpec struct{}

// DevClusterSpec is upstream's v1beta1 DevClusterSpec.
type DevClusterSpec struct {
	// controlPlaneEndpoint is where the workload cluster's API server is reached.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// backend says what runs the cluster; Capstan offers docker only.
	// +optional
	Backend DevClusterBackendSpec `json:"backend,omitempty,omitzero"`
}

// DevClusterBackendSpec picks the backend of a DevCluster.
type DevClusterBackendSpec struct {
	// docker runs the cluster's load balancer as a container.
	// +optional
	Docker *DockerClusterBackendSpec `json:"docker,omitempty"`

	// inMemory is upstream's fake backend; refused.
	// +optional
	InMemory *InMemoryBackendSpec `json:"inMemory,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DevCluster is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevCluster was created"

// DevCluster is upstream's v1beta1 DevCluster; its status is a v1beta1 DockerCluster's.
type DevCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DevClusterSpec      `json:"spec,omitempty"`
	Status DockerClusterStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DevClusterList is a list of DevClusters.
type DevClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DevCluster `json:"items"`
}

// DevClusterTemplateSpec is upstream's v1beta1 DevClusterTemplateSpec.
type DevClusterTemplateSpec struct {
	Template DevClusterTemplateResource `json:"template"`
}

// DevClusterTemplateResource is what a DevCluster is cloned from.
type DevClusterTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DevCluster.
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	Spec       DevClusterSpec            `json:"spec"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DevClusterTemplate is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevClusterTemplate was created"

// DevClusterTemplate is upstream's v1beta1 DevClusterTemplate.
type DevClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DevClusterTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// DevClusterTemplateList is a list of DevClusterTemplates.
type DevClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DevClusterTemplate `json:"items"`
}

// DevMachineSpec is upstream's v1beta1 DevMachineSpec.
type DevMachineSpec struct {
	// providerID is the node's provider ID.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ProviderID *string `json:"providerID,omitempty"`

	// backend says what runs the node; Capstan offers docker only.
	// +optional
	Backend DevMachineBackendSpec `json:"backend,omitempty,omitzero"`
}

// DevMachineBackendSpec picks the backend of a DevMachine.
type DevMachineBackendSpec struct {
	// docker runs the node as a container.
	// +optional
	Docker *DockerMachineBackendSpec `json:"docker,omitempty"`

	// inMemory is upstream's fake backend; refused.
	// +optional
	InMemory *InMemoryBackendSpec `json:"inMemory,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DevMachine is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevMachine was created"

// DevMachine is upstream's v1beta1 DevMachine; its status is a v1beta1 DockerMachine's.
type DevMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DevMachineSpec      `json:"spec,omitempty"`
	Status DockerMachineStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DevMachineList is a list of DevMachines.
type DevMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DevMachine `json:"items"`
}

// DevMachineTemplateSpec is upstream's v1beta1 DevMachineTemplateSpec.
type DevMachineTemplateSpec struct {
	Template DevMachineTemplateResource `json:"template"`
}

// DevMachineTemplateResource is what a DevMachine is cloned from.
type DevMachineTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DevMachine.
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	Spec       DevMachineSpec            `json:"spec"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=devmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DevMachineTemplate is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DevMachineTemplate was created"

// DevMachineTemplate is upstream's v1beta1 DevMachineTemplate.
type DevMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DevMachineTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// DevMachineTemplateList is a list of DevMachineTemplates.
type DevMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DevMachineTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DevCluster{}, &DevClusterList{}, &DevClusterTemplate{}, &DevClusterTemplateList{},
		&DevMachine{}, &DevMachineList{}, &DevMachineTemplate{}, &DevMachineTemplateList{})
}
