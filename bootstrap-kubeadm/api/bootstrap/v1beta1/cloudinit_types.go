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
	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// File is a file written on the machine.
type File struct {
	Path string `json:"path"`
	// +optional
	Owner string `json:"owner,omitempty"`
	// +optional
	Permissions string `json:"permissions,omitempty"`
	// +optional
	Encoding bootstrapv1.Encoding `json:"encoding,omitempty"`
	// +optional
	ContentFormat bootstrapv1.FileContentFormat `json:"contentFormat,omitempty"`
	// +optional
	Append bool `json:"append,omitempty"`
	// +optional
	Content string `json:"content,omitempty"`
	// +optional
	ContentFrom *FileSource `json:"contentFrom,omitempty"`
}

// FileSource is where a file's content comes from.
type FileSource struct {
	Secret SecretFileSource `json:"secret"`
}

// SecretFileSource is a key of a Secret in the object's namespace.
type SecretFileSource struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// User is a user created on the machine.
type User struct {
	Name string `json:"name"`
	// +optional
	Gecos *string `json:"gecos,omitempty"`
	// +optional
	Groups *string `json:"groups,omitempty"`
	// +optional
	HomeDir *string `json:"homeDir,omitempty"`
	// +optional
	Inactive *bool `json:"inactive,omitempty"`
	// +optional
	Shell *string `json:"shell,omitempty"`
	// +optional
	Passwd *string `json:"passwd,omitempty"`
	// +optional
	PasswdFrom *PasswdSource `json:"passwdFrom,omitempty"`
	// +optional
	PrimaryGroup *string `json:"primaryGroup,omitempty"`
	// +optional
	LockPassword *bool `json:"lockPassword,omitempty"`
	// +optional
	Sudo *string `json:"sudo,omitempty"`
	// +optional
	SSHAuthorizedKeys []string `json:"sshAuthorizedKeys,omitempty"`
}

// PasswdSource is where a user's password hash comes from.
type PasswdSource struct {
	Secret SecretPasswdSource `json:"secret"`
}

// SecretPasswdSource is a key of a Secret in the object's namespace.
type SecretPasswdSource struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// NTP configures time synchronisation.
type NTP struct {
	// +optional
	Servers []string `json:"servers,omitempty"`
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// DiskSetup are partitions and filesystems to create.
type DiskSetup struct {
	// +optional
	Partitions []Partition `json:"partitions,omitempty"`
	// +optional
	Filesystems []Filesystem `json:"filesystems,omitempty"`
}

// Partition is a disk partition table.
type Partition struct {
	Device string `json:"device"`
	Layout bool   `json:"layout"`
	// +optional
	Overwrite *bool `json:"overwrite,omitempty"`
	// +optional
	TableType *string `json:"tableType,omitempty"`
	// diskLayout, when set, overrides layout.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	DiskLayout []bootstrapv1.PartitionSpec `json:"diskLayout,omitempty"`
}

// Filesystem is a filesystem to create.
type Filesystem struct {
	Device     string `json:"device"`
	Filesystem string `json:"filesystem"`
	// +optional
	Label string `json:"label,omitempty"`
	// +optional
	Partition *string `json:"partition,omitempty"`
	// +optional
	Overwrite *bool `json:"overwrite,omitempty"`
	// +optional
	ReplaceFS *string `json:"replaceFS,omitempty"`
	// +optional
	ExtraOpts []string `json:"extraOpts,omitempty"`
}

// MountPoints is one cloud-init mount entry.
type MountPoints []string

// IgnitionSpec holds the settings of Ignition bootstrap data.
type IgnitionSpec struct {
	// +optional
	ContainerLinuxConfig *ContainerLinuxConfig `json:"containerLinuxConfig,omitempty"`
}

// ContainerLinuxConfig is an Ignition Container Linux config.
type ContainerLinuxConfig struct {
	// +optional
	AdditionalConfig string `json:"additionalConfig,omitempty"`
	// +optional
	Strict bool `json:"strict,omitempty"`
}
