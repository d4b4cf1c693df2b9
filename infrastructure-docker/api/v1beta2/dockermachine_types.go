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
	// MachineFinalizer lets the DockerMachine controller remove the node container before the
	// DockerMachine goes. Upstream CAPD's value.
	MachineFinalizer = "dockermachine.infrastructure.cluster.x-k8s.io"
)

// DockerMachineSpec is the desired state of a DockerMachine.
type DockerMachineSpec struct {
	// providerID is the node's provider ID, "docker:////<container name>", set by the controller
	// once the container runs. Part of the provider contract: the Machine controller finds the
	// Node with the same spec.providerID.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// The Docker settings, which a DevMachine holds under spec.backend.docker.
	DockerMachineBackendSpec `json:",inline"`
}

// DockerMachineBackendSpec is the Docker part of a DockerMachine's spec: a DevMachine's
// spec.backend.docker has the same fields.
type DockerMachineBackendSpec struct {
	// customImage is the node image to run instead of capstan/node:<Machine's version>, e.g.
	// capstan/node:v1.37.2-debug. The image must exist on the Docker Engine: the provider never
	// pulls.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CustomImage string `json:"customImage,omitempty"`

	// preLoadImages are images of the Docker Engine to import into the node's containerd
	// (namespace k8s.io) before bootstrapping, e.g. an application image built locally. Each is
	// imported once per node. Nothing is pulled: while an image is not on the engine, the
	// bootstrap waits and the BootstrapExecSucceeded condition names it.
	// An empty list is accepted and means the same as leaving the field out, as upstream.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	PreLoadImages []string `json:"preLoadImages,omitempty"`

	// extraMounts are host paths or volumes mounted into the node container, in addition to the
	// volume the provider mounts at /var.
	// An empty list is accepted and means the same as leaving the field out, as upstream.
	// +optional
	// +listType=map
	// +listMapKey=containerPath
	// +kubebuilder:validation:MaxItems=100
	ExtraMounts []Mount `json:"extraMounts,omitempty"`

	// bootstrapTimeout bounds the execution of the bootstrap data in the container, as a Go
	// duration such as 5m or 1h30m. Unset means 5m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|µs|ms|s|m|h))+$') && duration(self) > duration('0s')",messageExpression="'bootstrapTimeout \"' + self + '\" is not a positive duration: write a Go duration such as 90s, 5m or 1h30m'"
	BootstrapTimeout *metav1.Duration `json:"bootstrapTimeout,omitempty"`
}

// Mount is a host path or volume mounted into a node container.
type Mount struct {
	// containerPath is where the mount appears in the container; an absolute path. /var is taken
	// by the provider's own volume.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/')",messageExpression="'containerPath \"' + self + '\" is relative: write an absolute path inside the container, e.g. /opt/data'"
	// +kubebuilder:validation:XValidation:rule="self != '/var' && self != '/var/' && self != '/'",messageExpression="'containerPath \"' + self + '\" is reserved: the provider mounts the node volume at /var; mount below another directory'"
	ContainerPath string `json:"containerPath,omitempty"`

	// hostPath is the absolute path on the Docker host to mount. Unset mounts a new anonymous
	// volume at containerPath instead.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/')",messageExpression="'hostPath \"' + self + '\" is relative: write an absolute path on the Docker host, e.g. /srv/data'"
	HostPath string `json:"hostPath,omitempty"`

	// readOnly mounts the path read-only.
	// +optional
	ReadOnly *bool `json:"readOnly,omitempty"`
}

// DockerMachineStatus is the observed state of a DockerMachine.
// +kubebuilder:validation:MinProperties=1
type DockerMachineStatus struct {
	// conditions are the observations of the DockerMachine's state. Known types: Ready,
	// ContainerProvisioned, BootstrapExecSucceeded, Deleting, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the DockerMachine.
	// These fields are part of the provider contract.
	// +optional
	Initialization DockerMachineInitializationStatus `json:"initialization,omitempty,omitzero"`

	// addresses of the node container: its hostname and its IP addresses on the provider's
	// network. Part of the provider contract: copied to Machine.status.addresses.
	// +optional
	Addresses clusterv1.MachineAddresses `json:"addresses,omitempty"`

	// failureDomain the node container was placed in, copied from Machine.spec.failureDomain.
	// Part of the provider contract.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`
}

// DockerMachineInitializationStatus records the one-way milestones of a DockerMachine.
// +kubebuilder:validation:MinProperties=1
type DockerMachineInitializationStatus struct {
	// provisioned becomes true once the node container runs and spec.providerID is set; it never
	// goes back to false. The Machine controller copies it to
	// Machine.status.initialization.infrastructureProvisioned.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dockermachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the DockerMachine belongs to"
// +kubebuilder:printcolumn:name="Machine",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Machine")].name`,description="Machine owning this DockerMachine"
// +kubebuilder:printcolumn:name="Provider-ID",type="string",JSONPath=".spec.providerID",description="Provider ID of the node"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the node container is ready"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the DockerMachine was created"

// DockerMachine is the infrastructure of one Machine: a node container running systemd,
// containerd and the kubelet, on the provider's Docker network.
type DockerMachine struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the DockerMachine.
	// +optional
	Spec DockerMachineSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the DockerMachine.
	// +optional
	Status DockerMachineStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the DockerMachine's conditions, for shared condition helpers.
func (m *DockerMachine) GetConditions() []metav1.Condition {
	return m.Status.Conditions
}

// SetConditions replaces the DockerMachine's conditions, for shared condition helpers.
func (m *DockerMachine) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// DockerMachineList is a list of DockerMachines.
type DockerMachineList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DockerMachines.
	Items []DockerMachine `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &DockerMachine{}, &DockerMachineList{})
}
