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

const (
	// ClusterFinalizer lets the DockerCluster controller remove the load-balancer container before
	// the DockerCluster goes. Upstream CAPD's value, so that objects moved between management
	// planes keep working.
	ClusterFinalizer = "dockercluster.infrastructure.cluster.x-k8s.io"

	// LoadBalancerAddressAnnotation records, on the DockerCluster, the address nodes reach the
	// load balancer at on the provider's Docker network ("<ip>:6443"). spec.controlPlaneEndpoint
	// is the management side's address (a port published on 127.0.0.1), which nodes cannot use.
	LoadBalancerAddressAnnotation = "dockercluster.infrastructure.cluster.x-k8s.io/load-balancer-address"
)

// DockerClusterSpec is the desired state of a DockerCluster. Every field is optional: upstream's
// manifests write `spec: {}` and let the provider fill in the endpoint.
type DockerClusterSpec struct {
	// controlPlaneEndpoint is where the workload cluster's API server is reached from the
	// management side. The controller sets it to 127.0.0.1 and the host port Docker published for
	// the load balancer when it is unset; when it is set to 127.0.0.1, that port is published.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// The Docker settings, which a DevCluster holds under spec.backend.docker.
	DockerClusterBackendSpec `json:",inline"`
}

// DockerClusterBackendSpec is the Docker part of a DockerCluster's spec: a DevCluster's
// spec.backend.docker has the same fields.
type DockerClusterBackendSpec struct {
	// failureDomains are the failure domains Machines may be placed in. Docker has none of its
	// own: they are copied to status.failureDomains and become a label on the node containers.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []clusterv1.FailureDomain `json:"failureDomains,omitempty"`

	// loadBalancer configures the load-balancer container in front of the control plane.
	// +optional
	LoadBalancer DockerLoadBalancer `json:"loadBalancer,omitempty,omitzero"`
}

// DockerLoadBalancer configures the <cluster>-lb container.
// +kubebuilder:validation:XValidation:rule="has(self.imageRepository) || has(self.imageTag)",message="loadBalancer must not be empty: set imageRepository or imageTag (e.g. imageTag: latest), or leave loadBalancer out to run capstan/haproxy:latest"
type DockerLoadBalancer struct {
	// ImageMeta names the load balancer's image, <imageRepository>/haproxy:<imageTag>;
	// capstan/haproxy:latest (what `make lb-image` builds) when both are unset.
	ImageMeta `json:",inline"`
}

// ImageMeta names the load balancer's image as upstream's Docker provider does: a registry
// and/or repository path that the image name haproxy is appended to, and a tag.
type ImageMeta struct {
	// imageRepository is where the haproxy image comes from: the image is
	// <imageRepository>/haproxy:<imageTag>, so kindest means kindest/haproxy and
	// registry.local:5000/mirror means registry.local:5000/mirror/haproxy. Defaults to capstan.
	// The image must exist on the Docker Engine: the provider never pulls.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$')",messageExpression="'imageRepository \"' + self + '\" must be a registry and/or repository path without image name, tag or digest, e.g. kindest or registry.local:5000/mirror: the image is <imageRepository>/haproxy:<imageTag>'"
	ImageRepository string `json:"imageRepository,omitempty"`

	// imageTag is the image's tag, e.g. latest.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_][A-Za-z0-9_.-]*$')",messageExpression="'imageTag \"' + self + '\" is not a valid tag: start with a letter, digit or underscore, then use only letters, digits, \"_\", \".\" and \"-\", e.g. latest or v1.2.3'"
	ImageTag string `json:"imageTag,omitempty"`
}

// DockerClusterStatus is the observed state of a DockerCluster.
// +kubebuilder:validation:MinProperties=1
type DockerClusterStatus struct {
	// conditions are the observations of the DockerCluster's state. Known types: Ready,
	// LoadBalancerAvailable, Deleting, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the DockerCluster.
	// These fields are part of the provider contract.
	// +optional
	Initialization DockerClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// failureDomains are the failure domains Machines may be placed in, copied from the spec.
	// Part of the provider contract: the Cluster controller copies them to the Cluster.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []clusterv1.FailureDomain `json:"failureDomains,omitempty"`
}

// DockerClusterInitializationStatus records the one-way milestones of a DockerCluster.
// +kubebuilder:validation:MinProperties=1
type DockerClusterInitializationStatus struct {
	// provisioned becomes true once the load balancer runs and spec.controlPlaneEndpoint is set;
	// it never goes back to false. The Cluster controller copies it to
	// Cluster.status.initialization.infrastructureProvisioned.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockerclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the DockerCluster belongs to"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the load balancer is ready"
// +kubebuilder:printcolumn:name="Endpoint-Host",type="string",JSONPath=".spec.controlPlaneEndpoint.host",description="Host of the control plane endpoint",priority=10
// +kubebuilder:printcolumn:name="Endpoint-Port",type="integer",JSONPath=".spec.controlPlaneEndpoint.port",description="Port of the control plane endpoint",priority=10
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerCluster was created"

// DockerCluster is the infrastructure of one Cluster on a Docker Engine: a load-balancer container
// in front of the control-plane node containers, on the provider's Docker network.
type DockerCluster struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the DockerCluster.
	// +optional
	Spec DockerClusterSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the DockerCluster.
	// +optional
	Status DockerClusterStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the DockerCluster's conditions, for shared condition helpers.
func (c *DockerCluster) GetConditions() []metav1.Condition {
	return c.Status.Conditions
}

// SetConditions replaces the DockerCluster's conditions, for shared condition helpers.
func (c *DockerCluster) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// DockerClusterList is a list of DockerClusters.
type DockerClusterList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DockerClusters.
	Items []DockerCluster `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerCluster{}, &DockerClusterList{})
}
