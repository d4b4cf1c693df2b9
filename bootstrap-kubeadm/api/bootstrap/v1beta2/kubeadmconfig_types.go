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
)

// Format is the format of the bootstrap data. The schema knows upstream's two values so that
// ignition is refused with a message saying why rather than as an unknown value.
// +kubebuilder:validation:Enum=cloud-config;ignition
// +kubebuilder:validation:XValidation:rule="self != 'ignition'",message="format ignition is not supported: Capstan renders cloud-config bootstrap data only (upstream offers Ignition behind an alpha feature gate); remove format or set it to cloud-config, and express Ignition-only settings as files and commands"
type Format string

const (
	// CloudConfig makes the bootstrap data a cloud-init #cloud-config document. It is the only
	// format Capstan produces.
	CloudConfig Format = "cloud-config"

	// Ignition is upstream's Ignition format, which Capstan refuses at admission.
	Ignition Format = "ignition"
)

// ManagedBootstrapTokenAnnotation is set by the KubeadmConfig controller on a KubeadmConfig whose
// spec.joinConfiguration.discovery.bootstrapToken.token it created; the value is the token's ID
// (the public "<id>" half of "<id>.<secret>", also the name suffix of its kube-system
// bootstrap-token-<id> Secret in the workload cluster). The controller refreshes, re-creates and
// rotates only a token whose ID matches: a token the user wrote into the spec is never touched.
// It is an annotation rather than a status field so that it survives a move or a backup restore
// together with the token in the spec.
const ManagedBootstrapTokenAnnotation = "bootstrap.cluster.x-k8s.io/managed-bootstrap-token"

// KubeadmConfigSpec is the desired bootstrap configuration of a Machine. A Machine runs either
// "kubeadm init" (clusterConfiguration + initConfiguration) or "kubeadm join"
// (joinConfiguration); KubeadmControlPlane embeds this type and sets all three.
// +kubebuilder:validation:XValidation:rule="has(self.clusterConfiguration) || has(self.initConfiguration) || has(self.joinConfiguration) || has(self.files) || has(self.diskSetup) || has(self.mounts) || has(self.bootCommands) || has(self.preKubeadmCommands) || has(self.postKubeadmCommands) || has(self.users) || has(self.ntp) || has(self.format) || has(self.verbosity)",message="must set at least one of clusterConfiguration, initConfiguration, joinConfiguration, files, diskSetup, mounts, bootCommands, preKubeadmCommands, postKubeadmCommands, users, ntp, format or verbosity, or be left out instead of written as an empty object ({})"
type KubeadmConfigSpec struct {
	// clusterConfiguration holds the cluster-wide kubeadm settings used by "kubeadm init".
	// +optional
	ClusterConfiguration ClusterConfiguration `json:"clusterConfiguration,omitempty,omitzero"`

	// initConfiguration holds the settings of "kubeadm init".
	// +optional
	InitConfiguration InitConfiguration `json:"initConfiguration,omitempty,omitzero"`

	// joinConfiguration holds the settings of "kubeadm join".
	// +optional
	JoinConfiguration JoinConfiguration `json:"joinConfiguration,omitempty,omitzero"`

	// files are extra files written on the node before kubeadm runs, in this order. Paths must be
	// unique.
	// +optional
	// +listType=map
	// +listMapKey=path
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=200
	Files []File `json:"files,omitempty"`

	// diskSetup partitions disks and creates file systems (cloud-init disk_setup and fs_setup)
	// before the files are written.
	// +optional
	DiskSetup DiskSetup `json:"diskSetup,omitempty,omitzero"`

	// mounts are mount points to set up (cloud-init mounts), each the fields of an fstab line:
	// device, mount point, then optionally file system type, options, dump and pass, e.g.
	// ["LABEL=etcd_disk", "/var/lib/etcddisk"].
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Mounts []MountPoints `json:"mounts,omitempty"`

	// bootCommands are shell commands run very early in the boot (cloud-init bootcmd), on every
	// boot; wrap a command in cloud-init-per to run it once.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=10240
	BootCommands []string `json:"bootCommands,omitempty"`

	// preKubeadmCommands are shell commands run before kubeadm, in this order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=10240
	PreKubeadmCommands []string `json:"preKubeadmCommands,omitempty"`

	// postKubeadmCommands are shell commands run after kubeadm succeeded, in this order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=10240
	PostKubeadmCommands []string `json:"postKubeadmCommands,omitempty"`

	// users are extra operating-system users to create on the node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Users []User `json:"users,omitempty"`

	// ntp configures time synchronisation on the node.
	// +optional
	NTP NTP `json:"ntp,omitempty,omitzero"`

	// format of the bootstrap data. Only cloud-config, the default, is supported: ignition is
	// refused.
	// +optional
	Format Format `json:"format,omitempty"`

	// verbosity is kubeadm's log level, passed as --v; unset keeps kubeadm's default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Verbosity *int32 `json:"verbosity,omitempty"`
}

// KubeadmConfigStatus is the observed state of a KubeadmConfig.
// +kubebuilder:validation:MinProperties=1
type KubeadmConfigStatus struct {
	// conditions are the observations of the KubeadmConfig's state. Known types: Ready,
	// DataSecretAvailable, CertificatesAvailable, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the KubeadmConfig.
	// These fields are part of the provider contract.
	// +optional
	Initialization KubeadmConfigInitializationStatus `json:"initialization,omitempty,omitzero"`

	// dataSecretName is the name of the Secret, in the same namespace, holding the bootstrap data
	// under the key "value". Part of the provider contract.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	DataSecretName string `json:"dataSecretName,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// KubeadmConfigInitializationStatus records the one-way milestones of a KubeadmConfig.
// +kubebuilder:validation:MinProperties=1
type KubeadmConfigInitializationStatus struct {
	// dataSecretCreated becomes true once the bootstrap data Secret exists; it never goes back to
	// false. The Machine controller copies it to Machine.status.initialization.bootstrapDataSecretCreated.
	// +optional
	DataSecretCreated *bool `json:"dataSecretCreated,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmconfigs,shortName=kc,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the KubeadmConfig belongs to"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the bootstrap data is ready"
// +kubebuilder:printcolumn:name="Data-Secret",type="string",JSONPath=".status.dataSecretName",description="Secret holding the bootstrap data"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the KubeadmConfig was created"

// KubeadmConfig is the bootstrap configuration of one Machine: the controller renders it, with
// values from the Cluster and the Machine, into a cloud-config document that runs kubeadm.
type KubeadmConfig struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired bootstrap configuration.
	// +optional
	Spec KubeadmConfigSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the KubeadmConfig.
	// +optional
	Status KubeadmConfigStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the KubeadmConfig's conditions, for shared condition helpers.
func (c *KubeadmConfig) GetConditions() []metav1.Condition {
	return c.Status.Conditions
}

// SetConditions replaces the KubeadmConfig's conditions, for shared condition helpers.
func (c *KubeadmConfig) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// KubeadmConfigList is a list of KubeadmConfigs.
type KubeadmConfigList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the KubeadmConfigs.
	Items []KubeadmConfig `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &KubeadmConfig{}, &KubeadmConfigList{})
}
