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

package cloudinit

// Kind is what a node does with its bootstrap data.
type Kind string

const (
	// Init runs "kubeadm init": the first control plane node.
	Init Kind = "init"
	// JoinControlPlane runs "kubeadm join" as an additional control plane node.
	JoinControlPlane Kind = "join-control-plane"
	// JoinWorker runs "kubeadm join" as a worker.
	JoinWorker Kind = "join-worker"
)

// Encoding says how File.Content is encoded; cloud-init decodes it before writing the file.
// The values are those of the KubeadmConfig API, all of which cloud-init understands.
type Encoding string

const (
	// Plain content is written as is.
	Plain Encoding = ""
	// Base64 content is base64 text.
	Base64 Encoding = "base64"
	// Gzip content is gzip-compressed bytes.
	Gzip Encoding = "gzip"
	// GzipBase64 content is gzip-compressed bytes, base64-encoded.
	GzipBase64 Encoding = "gzip+base64"
)

// Input is everything a node's bootstrap data is made of, already resolved.
type Input struct {
	// Kind selects the kubeadm command and the kubeadm file's path.
	Kind Kind
	// KubeadmConfig is the kubeadm configuration file (package kubeadm's output).
	KubeadmConfig []byte
	// Certificates are the cluster key pairs a control plane node needs; a worker gets none.
	Certificates []Certificate
	// Files are the user's files, written in this order before the kubeadm file.
	Files []File
	// BootCommands run very early in every boot (cloud-init bootcmd), in this order.
	BootCommands []string
	// DiskSetup partitions disks and creates file systems; nil leaves the disks alone.
	DiskSetup *DiskSetup
	// Mounts are mount points, each the fields of an fstab line (device, mount point, ...).
	Mounts [][]string
	// PreKubeadmCommands and PostKubeadmCommands run before and after kubeadm, in order.
	PreKubeadmCommands  []string
	PostKubeadmCommands []string
	// Users are operating-system users to create.
	Users []User
	// NTP configures time synchronisation; nil leaves cloud-init's default.
	NTP *NTP
	// Verbosity, when set, is passed to kubeadm as --v.
	Verbosity *int32
}

// File is a file to write on the node.
type File struct {
	// Path on the node.
	Path string
	// Owner as "user:group"; empty keeps cloud-init's default (root:root).
	Owner string
	// Permissions in octal, e.g. "0640"; empty keeps cloud-init's default (0644).
	Permissions string
	// Encoding of Content.
	Encoding Encoding
	// Append adds Content to an existing file instead of replacing it.
	Append bool
	// Content as stored in the KubeadmConfig or its Secret, encoded as Encoding says.
	Content []byte
}

// Certificate is a key pair written for kubeadm, e.g. /etc/kubernetes/pki/ca.crt and ca.key. The
// certificate is written root:root 0640 and the key root:root 0600, as kubeadm expects.
type Certificate struct {
	// CertPath and KeyPath are where the certificate (or public key) and the private key go.
	CertPath string
	KeyPath  string
	// Cert is the PEM certificate (or public key, for the service-account pair).
	Cert []byte
	// Key is the PEM private key. Empty means kubeadm gets the certificate alone (an external CA
	// whose key stays elsewhere), so no key file is written.
	Key []byte
}

// User is an operating-system user to create. Passwd is the hashed password, already read
// from its Secret when it came from one.
type User struct {
	Name              string
	Gecos             string
	Groups            string
	HomeDir           string
	Inactive          *bool
	Shell             string
	Passwd            string
	PrimaryGroup      string
	Sudo              string
	LockPassword      *bool
	SSHAuthorizedKeys []string
}

// DiskSetup partitions disks (cloud-init disk_setup) and creates file systems (fs_setup).
type DiskSetup struct {
	Partitions  []Partition
	Filesystems []Filesystem
}

// Partition is the partition table of one device: Layout true makes one partition spanning it,
// DiskLayout (when set, instead of Layout) the partitions it lists.
type Partition struct {
	Device     string
	Layout     bool
	DiskLayout []PartitionSpec
	Overwrite  *bool
	TableType  string
}

// PartitionSpec is one partition of a DiskLayout: a percentage of the device and a type, either
// a name of the KubeadmConfig API (Linux, LinuxSwap, LinuxRAID, LVM, Fat32, NTFS,
// LinuxExtended), a GPT partition type GUID, or empty for cloud-init's default.
type PartitionSpec struct {
	Percentage int32
	Type       string
}

// Filesystem is a file system to create.
type Filesystem struct {
	Device     string
	Filesystem string
	Label      string
	Partition  string
	Overwrite  *bool
	ReplaceFS  string
	ExtraOpts  []string
}

// NTP configures time synchronisation.
type NTP struct {
	Servers []string
	Enabled *bool
}
