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

// FileContentFormat says how the content of a file is read before it is written on the node.
// +kubebuilder:validation:Enum="";go-template
type FileContentFormat string

// FileContentFormatGoTemplate renders the content as a Go text/template whose data is
// {{ .KubernetesVersion }} (e.g. 1.37.2, without the "v").
const FileContentFormatGoTemplate FileContentFormat = "go-template"

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

	// contentFormat says how the content is read once it is resolved (inline or from contentFrom):
	// empty writes it as it is; go-template renders it as a Go text/template with
	// {{ .KubernetesVersion }}, the version without its "v" (the Machine's; for a worker, the
	// control plane's spec.version when Cluster.spec.controlPlaneRef names one). The template is
	// applied to the content as stored, before the node decodes encoding.
	// +optional
	ContentFormat FileContentFormat `json:"contentFormat,omitempty"`

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

// User is an operating-system user to create on the node (cloud-init users). Its password
// comes either inline from passwd or from a Secret through passwdFrom.
// +kubebuilder:validation:XValidation:rule="!(has(self.passwd) && has(self.passwdFrom))",messageExpression="'user \"' + self.name + '\" sets both passwd and passwdFrom: a password comes from exactly one source; remove one of them'"
type User struct {
	// name of the user.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// gecos is the user's comment field, usually the full name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Gecos string `json:"gecos,omitempty"`

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

	// inactive marks the account as expired, so that nobody can log in as the user.
	// +optional
	Inactive *bool `json:"inactive,omitempty"`

	// shell is the user's login shell, e.g. /bin/bash.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Shell string `json:"shell,omitempty"`

	// passwd is the user's hashed password, as in /etc/shadow (e.g. the output of
	// "mkpasswd --method=SHA-512"). Mutually exclusive with passwdFrom.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Passwd string `json:"passwd,omitempty"`

	// passwdFrom takes the hashed password from a Secret. Mutually exclusive with passwd.
	// +optional
	PasswdFrom PasswdSource `json:"passwdFrom,omitempty,omitzero"`

	// primaryGroup is the user's primary group; defaults to a new group named like the user.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	PrimaryGroup string `json:"primaryGroup,omitempty"`

	// lockPassword disables password login for the user. cloud-init's default is true.
	// +optional
	LockPassword *bool `json:"lockPassword,omitempty"`

	// sudo is the user's sudoers rule, e.g. "ALL=(ALL) NOPASSWD:ALL".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Sudo string `json:"sudo,omitempty"`

	// sshAuthorizedKeys are the public keys allowed to log in as the user over SSH.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	SSHAuthorizedKeys []string `json:"sshAuthorizedKeys,omitempty"`
}

// PasswdSource says where a user's hashed password comes from.
type PasswdSource struct {
	// secret takes the password from a key of a Secret in the KubeadmConfig's namespace.
	// +required
	Secret SecretPasswdSource `json:"secret,omitempty,omitzero"`
}

// IsDefined reports whether any source is set.
func (s *PasswdSource) IsDefined() bool {
	return s != nil && (s.Secret.Name != "" || s.Secret.Key != "")
}

// SecretPasswdSource names a key of a Secret in the KubeadmConfig's namespace.
type SecretPasswdSource struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// key in the Secret's data whose value is the hashed password.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Key string `json:"key,omitempty"`
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

// DiskSetup partitions disks and creates file systems (cloud-init disk_setup and fs_setup).
// +kubebuilder:validation:XValidation:rule="has(self.partitions) || has(self.filesystems)",message="must set at least one of partitions or filesystems, or be left out instead of written as an empty object ({})"
type DiskSetup struct {
	// partitions are the partition tables to create.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Partitions []Partition `json:"partitions,omitempty"`

	// filesystems are the file systems to create.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Filesystems []Filesystem `json:"filesystems,omitempty"`
}

// Partition is the partition table of one device.
// +kubebuilder:validation:XValidation:rule="has(self.layout) != has(self.diskLayout)",messageExpression="'partition of ' + self.device + ' must set exactly one of layout (true: one partition spanning the device; false: leave the device as it is) and diskLayout (its partitions, by percentage of the device)'"
type Partition struct {
	// device to partition, e.g. /dev/sdb.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Device string `json:"device,omitempty"`

	// layout true creates a single partition spanning the device; false leaves the device
	// unpartitioned (or its partitions as they are). Exactly one of layout and diskLayout is set.
	// +optional
	Layout *bool `json:"layout,omitempty"`

	// overwrite partitions the device even if it already holds a partition table or a file
	// system, destroying them. Defaults to false.
	// +optional
	Overwrite *bool `json:"overwrite,omitempty"`

	// tableType is the partition table type: mbr (the default) or gpt.
	// +optional
	// +kubebuilder:validation:Enum=mbr;gpt
	TableType string `json:"tableType,omitempty"`

	// diskLayout lists the partitions to create, in order, each a percentage of the device and
	// optionally a partition type; the percentages add up to at most 100. Exactly one of layout
	// and diskLayout is set.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.map(p, p.percentage).sum() <= 100",message="the percentages add up to more than 100: the partitions of a device take at most 100 percent of it"
	DiskLayout []PartitionSpec `json:"diskLayout,omitempty"`
}

// PartitionSpec is one partition of a diskLayout.
type PartitionSpec struct {
	// percentage of the device the partition takes, 1 to 100.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Percentage int32 `json:"percentage,omitempty"`

	// partitionType is the partition's type: Linux, LinuxSwap, LinuxRAID, LVM, Fat32, NTFS,
	// LinuxExtended, or a GPT partition type GUID; unset leaves cloud-init's default (Linux).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:Pattern=`^(Linux|LinuxSwap|LinuxRAID|LVM|Fat32|NTFS|LinuxExtended|[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12})$`
	PartitionType string `json:"partitionType,omitempty"`
}

// Partition types of PartitionSpec.partitionType; cloud-init's disk_setup gets their codes.
const (
	PartitionTypeLinux         = "Linux"
	PartitionTypeLinuxSwap     = "LinuxSwap"
	PartitionTypeLinuxRAID     = "LinuxRAID"
	PartitionTypeLVM           = "LVM"
	PartitionTypeFat32         = "Fat32"
	PartitionTypeNTFS          = "NTFS"
	PartitionTypeLinuxExtended = "LinuxExtended"
)

// Filesystem is a file system to create.
type Filesystem struct {
	// device holding the file system, e.g. /dev/sdb or a partition of it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Device string `json:"device,omitempty"`

	// filesystem is the file system type, e.g. ext4 or xfs.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Filesystem string `json:"filesystem,omitempty"`

	// label of the file system; "None" gives it none.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Label string `json:"label,omitempty"`

	// partition to create the file system on: "auto|any", "auto", "any", "none" or a partition
	// number.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Partition string `json:"partition,omitempty"`

	// overwrite creates the file system even if one exists, destroying it.
	// +optional
	Overwrite *bool `json:"overwrite,omitempty"`

	// replaceFS replaces a file system of this type (cloud-init's replace_fs, used on Azure);
	// unless label is set it needs partition "any".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	ReplaceFS string `json:"replaceFS,omitempty"`

	// extraOpts are extra options of the mkfs command.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	ExtraOpts []string `json:"extraOpts,omitempty"`
}

// MountPoints is one mount: the fields of an fstab line, device and mount point first.
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=100
// +kubebuilder:validation:items:MinLength=1
// +kubebuilder:validation:items:MaxLength=512
type MountPoints []string
