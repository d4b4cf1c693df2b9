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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// DockerClusterSpec is upstream's v1beta1 DockerClusterSpec.
type DockerClusterSpec struct {
	// controlPlaneEndpoint is where the workload cluster's API server is reached.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// The Docker settings, which a DevCluster holds under spec.backend.docker.
	DockerClusterBackendSpec `json:",inline"`
}

// DockerClusterBackendSpec is the Docker part of a DockerCluster's spec.
type DockerClusterBackendSpec struct {
	// failureDomains are the failure domains Machines may be placed in, by name.
	// +optional
	FailureDomains clusterv1beta1.FailureDomains `json:"failureDomains,omitempty"`

	// loadBalancer configures the load-balancer container in front of the control plane.
	// +optional
	LoadBalancer DockerLoadBalancer `json:"loadBalancer,omitempty,omitzero"`
}

// DockerLoadBalancer configures the <cluster>-lb container.
type DockerLoadBalancer struct {
	// ImageMeta names the load balancer's image, <imageRepository>/haproxy:<imageTag>.
	ImageMeta `json:",inline"`

	// customHAProxyConfigTemplateRef names a ConfigMap whose haproxy.cfg template replaces the
	// generated configuration in upstream's Docker provider. Capstan keeps it through conversion
	// but does not apply it: the load balancer's configuration is always generated.
	// +optional
	CustomHAProxyConfigTemplateRef *corev1.LocalObjectReference `json:"customHAProxyConfigTemplateRef,omitempty"`
}

// ImageMeta names an image by repository and tag.
type ImageMeta struct {
	// imageRepository is the registry and/or repository path the image name is appended to.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	ImageRepository string `json:"imageRepository,omitempty"`

	// imageTag is the image's tag.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	ImageTag string `json:"imageTag,omitempty"`
}

// DockerClusterStatus is upstream's v1beta1 DockerClusterStatus.
type DockerClusterStatus struct {
	// ready is true once the load balancer runs and spec.controlPlaneEndpoint is set.
	// +optional
	Ready bool `json:"ready"`

	// failureDomains are the failure domains Machines may be placed in, copied from the spec.
	// +optional
	FailureDomains clusterv1beta1.FailureDomains `json:"failureDomains,omitempty"`

	// conditions are the v1beta1 conditions; Capstan sets none (see status.v1beta2.conditions).
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`

	// v1beta2 groups the v1beta2 status fields.
	// +optional
	V1Beta2 *V1Beta2Status `json:"v1beta2,omitempty"`
}

// V1Beta2Status groups the v1beta2 status fields of a DockerCluster or DockerMachine.
type V1Beta2Status struct {
	// conditions are the v1beta2 observations of the object's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockerclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DockerCluster is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerCluster was created"

// DockerCluster is upstream's v1beta1 DockerCluster.
type DockerCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DockerClusterSpec   `json:"spec,omitempty"`
	Status DockerClusterStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DockerClusterList is a list of DockerClusters.
type DockerClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DockerCluster `json:"items"`
}

// DockerClusterTemplateSpec is upstream's v1beta1 DockerClusterTemplateSpec.
type DockerClusterTemplateSpec struct {
	Template DockerClusterTemplateResource `json:"template"`
}

// DockerClusterTemplateResource is what a DockerCluster is cloned from.
type DockerClusterTemplateResource struct {
	// metadata holds the labels and annotations put on each cloned DockerCluster.
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	Spec       DockerClusterSpec         `json:"spec"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockerclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="infrastructure.cluster.x-k8s.io/v1beta1 DockerClusterTemplate is deprecated; use infrastructure.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerClusterTemplate was created"

// DockerClusterTemplate is upstream's v1beta1 DockerClusterTemplate.
type DockerClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DockerClusterTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// DockerClusterTemplateList is a list of DockerClusterTemplates.
type DockerClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DockerClusterTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerCluster{}, &DockerClusterList{}, &DockerClusterTemplate{}, &DockerClusterTemplateList{})
}
