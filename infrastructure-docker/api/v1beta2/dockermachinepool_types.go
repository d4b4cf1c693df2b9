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
	// MachinePoolFinalizer lets the DockerMachinePool controller remove the pool's node
	// containers before the DockerMachinePool goes. Upstream CAPD's value.
	MachinePoolFinalizer = "dockermachinepool.infrastructure.cluster.x-k8s.io"
)

// DockerMachinePoolSpec is the desired state of a DockerMachinePool. The number of instances is
// the owner MachinePool's spec.replicas.
type DockerMachinePoolSpec struct {
	// template is what each instance's node container is made from.
	// +optional
	Template DockerMachinePoolMachineTemplate `json:"template,omitempty,omitzero"`

	// providerID identifies the pool as a whole. Docker has no pool object, so the provider
	// never sets it; the field exists for compatibility with upstream manifests.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// providerIDList are the provider IDs of the pool's instances, "docker:////<container
	// name>", sorted; written by the controller. Part of the provider contract: the MachinePool
	// controller copies it to MachinePool.spec.providerIDList and finds the Nodes by it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	ProviderIDList []string `json:"providerIDList,omitempty"`
}

// DockerMachinePoolMachineTemplate is the node container of each instance of a pool: the fields
// of a DockerMachine's spec that apply to every instance alike. Empty is valid (`template: {}`,
// as upstream manifests write it): the defaults make a working node.
type DockerMachinePoolMachineTemplate struct {
	// customImage is the node image to run instead of capstan/node:<MachinePool's
	// spec.template.spec.version>. The image must exist on the Docker Engine: the provider never
	// pulls.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CustomImage string `json:"customImage,omitempty"`

	// preLoadImages are images of the Docker Engine to import into each instance's containerd
	// (namespace k8s.io) before bootstrapping it, e.g. an application image built locally. Each
	// is imported once per instance. Nothing is pulled: while an image is not on the engine, the
	// instances' bootstrap waits and the ReplicasReady condition names it.
	// An empty list is accepted and means the same as leaving the field out, as upstream.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	PreLoadImages []string `json:"preLoadImages,omitempty"`

	// extraMounts are host paths or volumes mounted into each node container, in addition to
	// the volume the provider mounts at /var.
	// An empty list is accepted and means the same as leaving the field out, as upstream.
	// +optional
	// +listType=map
	// +listMapKey=containerPath
	// +kubebuilder:validation:MaxItems=100
	ExtraMounts []Mount `json:"extraMounts,omitempty"`
}

// DockerMachinePoolStatus is the observed state of a DockerMachinePool.
// +kubebuilder:validation:MinProperties=1
type DockerMachinePoolStatus struct {
	// conditions are the observations of the DockerMachinePool's state. Known types: Ready,
	// ReplicasReady, Deleting, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the DockerMachinePool.
	// These fields are part of the provider contract.
	// +optional
	Initialization DockerMachinePoolInitializationStatus `json:"initialization,omitempty,omitzero"`

	// replicas is the number of the pool's node containers that exist. Part of the provider
	// contract: copied to MachinePool.status.replicas.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// instances are the pool's node containers, sorted by name.
	// +optional
	// +listType=map
	// +listMapKey=instanceName
	// +kubebuilder:validation:MaxItems=10000
	Instances []DockerMachinePoolInstanceStatus `json:"instances,omitempty"`
}

// DockerMachinePoolInitializationStatus records the one-way milestones of a DockerMachinePool.
// +kubebuilder:validation:MinProperties=1
type DockerMachinePoolInitializationStatus struct {
	// provisioned becomes true once the pool first had all its instances created and
	// bootstrapped; it never goes back to false. The MachinePool controller copies it to
	// MachinePool.status.initialization.infrastructureProvisioned.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// DockerMachinePoolInstanceStatus is one node container of a pool.
type DockerMachinePoolInstanceStatus struct {
	// instanceName is the node container's name, also its hostname and workload Node name:
	// <MachinePool name>-<5 random characters>.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	InstanceName string `json:"instanceName,omitempty"`

	// providerID is the instance's provider ID, "docker:////<instanceName>".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// addresses of the node container: its hostname and its IP address on the provider's
	// network.
	// +optional
	Addresses clusterv1.MachineAddresses `json:"addresses,omitempty"`

	// bootstrapped is true once the bootstrap data ran to the end in the container and wrote
	// /run/cluster-api/bootstrap-success.complete. It never goes back: an instance is
	// bootstrapped once.
	// +optional
	Bootstrapped bool `json:"bootstrapped,omitempty"`

	// ready is true when the instance is bootstrapped and its workload Node carries the
	// providerID.
	// +optional
	Ready bool `json:"ready"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachinepools,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the DockerMachinePool belongs to"
// +kubebuilder:printcolumn:name="MachinePool",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="MachinePool")].name`,description="MachinePool owning this DockerMachinePool"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas",description="Node containers of the pool"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether every instance is bootstrapped and its Node carries the providerID"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachinePool was created"

// DockerMachinePool is the infrastructure of one MachinePool: a set of identical node
// containers, one per replica, that the provider creates, bootstraps and removes as the
// MachinePool scales.
type DockerMachinePool struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the DockerMachinePool.
	// +optional
	Spec DockerMachinePoolSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the DockerMachinePool.
	// +optional
	Status DockerMachinePoolStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the DockerMachinePool's conditions, for shared condition helpers.
func (p *DockerMachinePool) GetConditions() []metav1.Condition {
	return p.Status.Conditions
}

// SetConditions replaces the DockerMachinePool's conditions, for shared condition helpers.
func (p *DockerMachinePool) SetConditions(conditions []metav1.Condition) {
	p.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// DockerMachinePoolList is a list of DockerMachinePools.
type DockerMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DockerMachinePools.
	Items []DockerMachinePool `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerMachinePool{}, &DockerMachinePoolList{})
}
