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

// Format is the format of the bootstrap data.
// +kubebuilder:validation:Enum=cloud-config;ignition
type Format string

const (
	// CloudConfig makes the bootstrap data a cloud-init #cloud-config document, the default.
	CloudConfig Format = "cloud-config"

	// Ignition makes the bootstrap data an Ignition config (spec 2.3), as upstream renders it
	// from a Container Linux Config. Upstream offers it behind its alpha feature gate
	// KubeadmBootstrapFormatIgnition; Capstan has no such gate and always accepts it, with
	// upstream's rules on the fields Ignition cannot carry (the CEL rules of KubeadmConfigSpec).
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
// +kubebuilder:validation:XValidation:rule="has(self.clusterConfiguration) || has(self.initConfiguration) || has(self.joinConfiguration) || has(self.files) || has(self.diskSetup) || has(self.mounts) || has(self.bootCommands) || has(self.preKubeadmCommands) || has(self.postKubeadmCommands) || has(self.users) || has(self.ntp) || has(self.format) || has(self.verbosity) || has(self.ignition)",message="must set at least one of clusterConfiguration, initConfiguration, joinConfiguration, files, diskSetup, mounts, bootCommands, preKubeadmCommands, postKubeadmCommands, users, ntp, format, verbosity or ignition, or be left out instead of written as an empty object ({})"
// +kubebuilder:validation:XValidation:rule="!has(self.ignition) || (has(self.format) && self.format == 'ignition')",fieldPath=".format",message="must be set to \"ignition\" if spec.ignition is set: ignition settings only apply to Ignition bootstrap data; set format: ignition or remove ignition"
// +kubebuilder:validation:XValidation:rule="!has(self.format) || self.format != 'ignition' || !has(self.users) || self.users.all(u, !has(u.inactive) || !u.inactive)",fieldPath=".users",reason="FieldValueForbidden",message="users[].inactive: not supported when spec.format is set to: \"ignition\" (Ignition cannot create an inactive user); remove inactive or use format cloud-config"
// +kubebuilder:validation:XValidation:rule="!has(self.format) || self.format != 'ignition' || !has(self.files) || self.files.all(f, !has(f.encoding) || (f.encoding != 'gzip' && f.encoding != 'gzip+base64'))",fieldPath=".files",reason="FieldValueForbidden",message="files[].encoding gzip and gzip+base64: not supported when spec.format is set to: \"ignition\"; write the content plain or base64"
// +kubebuilder:validation:XValidation:rule="!has(self.format) || self.format != 'ignition' || !has(self.bootCommands)",fieldPath=".bootCommands",reason="FieldValueForbidden",message="bootCommands: not supported when spec.format is set to: \"ignition\" (Ignition has no early boot commands); use preKubeadmCommands or a systemd unit in ignition.containerLinuxConfig.additionalConfig"
// +kubebuilder:validation:XValidation:rule="!has(self.format) || self.format != 'ignition' || !has(self.diskSetup) || !has(self.diskSetup.partitions) || self.diskSetup.partitions.all(p, !has(p.tableType) || p.tableType == 'gpt')",fieldPath=".diskSetup.partitions",message="diskSetup.partitions[].tableType: only partition type \"gpt\" is supported when spec.format is set to \"ignition\""
// +kubebuilder:validation:XValidation:rule="!has(self.format) || self.format != 'ignition' || !has(self.diskSetup) || !has(self.diskSetup.filesystems) || self.diskSetup.filesystems.all(f, !has(f.replaceFS))",fieldPath=".diskSetup.filesystems",reason="FieldValueForbidden",message="diskSetup.filesystems[].replaceFS: not supported when spec.format is set to: \"ignition\""
// +kubebuilder:validation:XValidation:rule="!has(self.format) || self.format != 'ignition' || !has(self.diskSetup) || !has(self.diskSetup.filesystems) || self.diskSetup.filesystems.all(f, !has(f.partition))",fieldPath=".diskSetup.filesystems",reason="FieldValueForbidden",message="diskSetup.filesystems[].partition: not supported when spec.format is set to: \"ignition\""
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

	// format of the bootstrap data: cloud-config (the default) or ignition. With ignition, the
	// fields Ignition cannot carry are refused, as upstream refuses them: users[].inactive,
	// files[].encoding gzip and gzip+base64, bootCommands, diskSetup.partitions[].tableType other
	// than gpt, and diskSetup.filesystems[].replaceFS and partition.
	// +optional
	Format Format `json:"format,omitempty"`

	// verbosity is kubeadm's log level, passed as --v; unset keeps kubeadm's default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Verbosity *int32 `json:"verbosity,omitempty"`

	// ignition holds the settings of Ignition bootstrap data; it requires format ignition.
	// +optional
	Ignition IgnitionSpec `json:"ignition,omitempty,omitzero"`
}

// IgnitionSpec holds the settings of Ignition bootstrap data.
// +kubebuilder:validation:MinProperties=1
type IgnitionSpec struct {
	// containerLinuxConfig holds the Container Linux Config settings.
	// +optional
	ContainerLinuxConfig ContainerLinuxConfig `json:"containerLinuxConfig,omitempty,omitzero"`
}

// IsDefined reports whether anything of the IgnitionSpec is set.
func (r *IgnitionSpec) IsDefined() bool {
	return r.ContainerLinuxConfig.IsDefined()
}

// ContainerLinuxConfig holds the Container Linux Config (CLC) settings of Ignition bootstrap
// data. It is a struct, as upstream's, so that fields (e.g. a version) can be added.
// +kubebuilder:validation:MinProperties=1
type ContainerLinuxConfig struct {
	// additionalConfig is a Container Linux Config (YAML) merged into the Ignition config the
	// controller generates, its lists appended after the generated ones as Ignition spec 2.3
	// appends configs. Capstan carries its storage.files, systemd.units (with drop-ins) and
	// passwd.users; other sections are ignored with a warning, or refused when strict is true.
	// Format: https://www.flatcar.org/docs/latest/provisioning/config-transpiler/configuration/
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32768
	AdditionalConfig string `json:"additionalConfig,omitempty"`

	// strict makes what additionalConfig holds that the bootstrap data cannot carry (a section
	// Capstan does not render, an unknown field) an error instead of a warning.
	// +optional
	Strict *bool `json:"strict,omitempty"`
}

// IsDefined reports whether anything of the ContainerLinuxConfig is set.
func (r *ContainerLinuxConfig) IsDefined() bool {
	return r.AdditionalConfig != "" || r.Strict != nil
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
// values from the Cluster and the Machine, into a cloud-config document or an Ignition config
// (spec.format) that runs kubeadm.
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
