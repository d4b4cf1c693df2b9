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
// +kubebuilder:validation:Enum=cloud-config
type Format string

const (
	// CloudConfig makes the bootstrap data a cloud-init #cloud-config document. It is the only
	// format Capstan produces; upstream's ignition is not implemented.
	CloudConfig Format = "cloud-config"
)

// ManagedBootstrapTokenAnnotation is set by the KubeadmConfig controller on a KubeadmConfig whose
// spec.joinConfiguration.discovery.bootstrapToken.token it created; the value is the token's ID
// (the public "<id>" half of "<id>.<secret>", also the name suffix of its kube-system
// bootstrap-token-<id> Secret in the workload cluster). The controller refreshes, re-creates and
// rotates only a token whose ID matches: a token the user wrote into the spec is never touched.
// It is an annotation rather than a status field so that it survives a move or a backup restore
// together with the token in the spec.
const ManagedBootstrapTokenAnnotation = "bootstrap.cluster.x-k8s.io/managed-bootstrap-token"

// Encoding says how the content of a file is encoded; the node decodes it before writing the file.
// +kubebuilder:validation:Enum=base64;gzip;gzip+base64
type Encoding string

const (
	// Base64 means the content is base64 text.
	Base64 Encoding = "base64"
	// Gzip means the content is gzip-compressed bytes.
	Gzip Encoding = "gzip"
	// GzipBase64 means the content is gzip-compressed bytes, then base64-encoded.
	GzipBase64 Encoding = "gzip+base64"
)

// KubeadmConfigSpec is the desired bootstrap configuration of a Machine. A Machine runs either
// "kubeadm init" (clusterConfiguration + initConfiguration) or "kubeadm join"
// (joinConfiguration); KubeadmControlPlane embeds this type and sets all three.
// +kubebuilder:validation:XValidation:rule="has(self.clusterConfiguration) || has(self.initConfiguration) || has(self.joinConfiguration) || has(self.files) || has(self.preKubeadmCommands) || has(self.postKubeadmCommands) || has(self.users) || has(self.ntp) || has(self.format) || has(self.verbosity)",message="must set at least one of clusterConfiguration, initConfiguration, joinConfiguration, files, preKubeadmCommands, postKubeadmCommands, users, ntp, format or verbosity, or be left out instead of written as an empty object ({})"
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

	// format of the bootstrap data. Only cloud-config, the default, is supported.
	// +optional
	Format Format `json:"format,omitempty"`

	// verbosity is kubeadm's log level, passed as --v; unset keeps kubeadm's default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Verbosity *int32 `json:"verbosity,omitempty"`
}

// File is a file to write on the node. Its content comes either inline from content or from a
// Secret through contentFrom; a file with neither is written empty.
// +kubebuilder:validation:XValidation:rule="!(has(self.content) && has(self.contentFrom))",messageExpression="'file \"' + self.path + '\" sets both content and contentFrom: a file takes its content from exactly one source; remove one of them'"
type File struct {
	// path is where the file is written on the node, e.g. /etc/kubernetes/audit-policy.yaml.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Path string `json:"path,omitempty"`

	// owner of the file as "user:group", e.g. root:root.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Owner string `json:"owner,omitempty"`

	// permissions of the file in octal, e.g. "0640".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16
	Permissions string `json:"permissions,omitempty"`

	// encoding of the content: base64, gzip or gzip+base64. Unset means plain text.
	// +optional
	Encoding Encoding `json:"encoding,omitempty"`

	// append adds the content to the end of an existing file instead of replacing it.
	// +optional
	Append *bool `json:"append,omitempty"`

	// content of the file, encoded as encoding says.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10240
	Content string `json:"content,omitempty"`

	// contentFrom takes the content of the file from a Secret, encoded as encoding says.
	// +optional
	ContentFrom FileSource `json:"contentFrom,omitempty,omitzero"`
}

// FileSource says where the content of a file comes from.
type FileSource struct {
	// secret takes the content from a key of a Secret in the KubeadmConfig's namespace.
	// +required
	Secret SecretFileSource `json:"secret,omitempty,omitzero"`
}

// IsDefined reports whether any source is set.
func (s *FileSource) IsDefined() bool {
	return s != nil && (s.Secret.Name != "" || s.Secret.Key != "")
}

// SecretFileSource names a key of a Secret in the KubeadmConfig's namespace.
type SecretFileSource struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// key in the Secret's data whose value is the file's content.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Key string `json:"key,omitempty"`
}

// User is an operating-system user to create on the node.
type User struct {
	// name of the user.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// groups the user belongs to besides its primary group, comma-separated, e.g. "wheel,docker".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Groups string `json:"groups,omitempty"`

	// homeDir is the user's home directory.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	HomeDir string `json:"homeDir,omitempty"`

	// shell is the user's login shell, e.g. /bin/bash.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Shell string `json:"shell,omitempty"`

	// sudo is the user's sudoers rule, e.g. "ALL=(ALL) NOPASSWD:ALL".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Sudo string `json:"sudo,omitempty"`

	// lockPassword disables password login for the user.
	// +optional
	LockPassword *bool `json:"lockPassword,omitempty"`

	// sshAuthorizedKeys are the public keys allowed to log in as the user over SSH.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	SSHAuthorizedKeys []string `json:"sshAuthorizedKeys,omitempty"`
}

// NTP configures time synchronisation on the node.
// +kubebuilder:validation:XValidation:rule="has(self.servers) || has(self.enabled)",message="must set at least one of servers or enabled, or be left out instead of written as an empty object ({})"
type NTP struct {
	// servers are the NTP servers to use, most preferred first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	Servers []string `json:"servers,omitempty"`

	// enabled turns NTP on or off.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
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
