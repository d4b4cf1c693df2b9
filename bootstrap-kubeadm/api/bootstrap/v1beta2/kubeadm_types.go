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
	corev1 "k8s.io/api/core/v1"
)

// This file declares the kubeadm settings a KubeadmConfig carries. They are the user-facing
// subset of kubeadm's own configuration API; the bootstrap controller turns them, plus values
// taken from the Cluster and the Machine (cluster name, endpoint, networks, Kubernetes version),
// into kubeadm v1beta4 documents. That is why ClusterConfiguration has no clusterName,
// networking or kubernetesVersion: upstream v1beta2 removed them for the same reason.

// ClusterConfiguration holds the cluster-wide kubeadm settings used by "kubeadm init".
// +kubebuilder:validation:XValidation:rule="has(self.etcd) || has(self.controlPlaneEndpoint) || has(self.apiServer) || has(self.controllerManager) || has(self.scheduler) || has(self.dns) || has(self.certificatesDir) || has(self.imageRepository) || has(self.featureGates) || has(self.certificateValidityPeriodDays) || has(self.caCertificateValidityPeriodDays) || has(self.encryptionAlgorithm)",message="must set at least one of etcd, controlPlaneEndpoint, apiServer, controllerManager, scheduler, dns, certificatesDir, imageRepository, featureGates, certificateValidityPeriodDays, caCertificateValidityPeriodDays or encryptionAlgorithm, or be left out instead of written as an empty object ({})"
// +kubebuilder:validation:XValidation:rule="!has(self.certificateValidityPeriodDays) || self.certificateValidityPeriodDays <= (has(self.caCertificateValidityPeriodDays) ? self.caCertificateValidityPeriodDays : 3650)",fieldPath=".certificateValidityPeriodDays",message="certificateValidityPeriodDays must not exceed the validity of the CA that signs the certificates (caCertificateValidityPeriodDays, 3650 when unset): a certificate cannot outlive its CA; lower it or raise caCertificateValidityPeriodDays"
type ClusterConfiguration struct {
	// etcd configures etcd: the member kubeadm runs on each control plane node (local, the
	// default) or an existing cluster the API servers connect to (external).
	// +optional
	Etcd Etcd `json:"etcd,omitempty,omitzero"`

	// controlPlaneEndpoint is the address (IP or DNS name, with an optional port) clients and
	// joining nodes reach the control plane at. Defaults to the Cluster's
	// spec.controlPlaneEndpoint, which is what it should normally be.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ControlPlaneEndpoint string `json:"controlPlaneEndpoint,omitempty"`

	// apiServer holds extra settings for the kube-apiserver.
	// +optional
	APIServer APIServer `json:"apiServer,omitempty,omitzero"`

	// controllerManager holds extra settings for the kube-controller-manager.
	// +optional
	ControllerManager ControllerManager `json:"controllerManager,omitempty,omitzero"`

	// scheduler holds extra settings for the kube-scheduler.
	// +optional
	Scheduler Scheduler `json:"scheduler,omitempty,omitzero"`

	// dns configures the image of the cluster DNS add-on (CoreDNS) that kubeadm installs.
	// +optional
	DNS DNS `json:"dns,omitempty,omitzero"`

	// certificatesDir is where kubeadm stores and looks for certificates on the node.
	// Defaults to /etc/kubernetes/pki.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CertificatesDir string `json:"certificatesDir,omitempty"`

	// imageRepository is the registry kubeadm pulls control plane images from.
	// Defaults to kubeadm's default registry.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ImageRepository string `json:"imageRepository,omitempty"`

	// featureGates are kubeadm feature gates, passed to kubeadm as given,
	// e.g. {WaitForAllControlPlaneComponents: true}.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	FeatureGates map[string]bool `json:"featureGates,omitempty"`

	// certificateValidityPeriodDays is how long the certificates kubeadm generates (not the CAs)
	// are valid. kubeadm's default is 365 days.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1095
	CertificateValidityPeriodDays int32 `json:"certificateValidityPeriodDays,omitempty"`

	// caCertificateValidityPeriodDays is how long the CAs the bootstrap provider generates for a
	// new cluster are valid. Defaults to 3650 days. It applies when the CAs are created only:
	// existing CAs keep their validity.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=36500
	CACertificateValidityPeriodDays int32 `json:"caCertificateValidityPeriodDays,omitempty"`

	// encryptionAlgorithm is the key type of the keys and certificates generated afterwards, by
	// the bootstrap provider (CAs and the service-account key) and by kubeadm: RSA-2048 (the
	// default), RSA-3072, RSA-4096, ECDSA-P256 or ECDSA-P384. Existing keys are not rotated.
	// +optional
	EncryptionAlgorithm EncryptionAlgorithmType `json:"encryptionAlgorithm,omitempty"`
}

// EncryptionAlgorithmType is the type of the asymmetric keys of certificates.
// +kubebuilder:validation:Enum=ECDSA-P256;ECDSA-P384;RSA-2048;RSA-3072;RSA-4096
type EncryptionAlgorithmType string

const (
	// EncryptionAlgorithmECDSAP256 is ECDSA on curve P-256.
	EncryptionAlgorithmECDSAP256 EncryptionAlgorithmType = "ECDSA-P256"
	// EncryptionAlgorithmECDSAP384 is ECDSA on curve P-384.
	EncryptionAlgorithmECDSAP384 EncryptionAlgorithmType = "ECDSA-P384"
	// EncryptionAlgorithmRSA2048 is RSA with 2048-bit keys, the default.
	EncryptionAlgorithmRSA2048 EncryptionAlgorithmType = "RSA-2048"
	// EncryptionAlgorithmRSA3072 is RSA with 3072-bit keys.
	EncryptionAlgorithmRSA3072 EncryptionAlgorithmType = "RSA-3072"
	// EncryptionAlgorithmRSA4096 is RSA with 4096-bit keys.
	EncryptionAlgorithmRSA4096 EncryptionAlgorithmType = "RSA-4096"
)

// APIServer holds extra settings for the kube-apiserver.
// +kubebuilder:validation:XValidation:rule="has(self.extraArgs) || has(self.extraVolumes) || has(self.extraEnvs) || has(self.certSANs)",message="must set at least one of extraArgs, extraVolumes, extraEnvs or certSANs, or be left out instead of written as an empty object ({})"
type APIServer struct {
	// extraArgs are extra kube-apiserver flags, without leading dashes; they override kubeadm's
	// defaults.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +listMapKey=value
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.name == y.name))",message="extraArgs names must be unique: kubeadm turns each entry into one --name=value flag of the component; keep a single entry per name"
	ExtraArgs []Arg `json:"extraArgs,omitempty"`

	// extraVolumes are extra host directories or files mounted into the kube-apiserver static Pod.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraVolumes []HostPathMount `json:"extraVolumes,omitempty"`

	// extraEnvs are extra environment variables of the kube-apiserver container; they override the
	// variables kubeadm sets, including the *_proxy ones it copies from the node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraEnvs *[]EnvVar `json:"extraEnvs,omitempty"`

	// certSANs are extra Subject Alternative Names for the API server's serving certificate,
	// e.g. the names and addresses clients use to reach it through a load balancer.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	CertSANs []string `json:"certSANs,omitempty"`
}

// ControllerManager holds extra settings for the kube-controller-manager.
// +kubebuilder:validation:XValidation:rule="has(self.extraArgs) || has(self.extraVolumes) || has(self.extraEnvs)",message="must set at least one of extraArgs, extraVolumes or extraEnvs, or be left out instead of written as an empty object ({})"
type ControllerManager struct {
	// extraArgs are extra kube-controller-manager flags, without leading dashes; they override
	// kubeadm's defaults.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +listMapKey=value
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.name == y.name))",message="extraArgs names must be unique: kubeadm turns each entry into one --name=value flag of the component; keep a single entry per name"
	ExtraArgs []Arg `json:"extraArgs,omitempty"`

	// extraVolumes are extra host directories or files mounted into the kube-controller-manager static Pod.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraVolumes []HostPathMount `json:"extraVolumes,omitempty"`

	// extraEnvs are extra environment variables of the kube-controller-manager container; they override the
	// variables kubeadm sets, including the *_proxy ones it copies from the node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraEnvs *[]EnvVar `json:"extraEnvs,omitempty"`
}

// Scheduler holds extra settings for the kube-scheduler.
// +kubebuilder:validation:XValidation:rule="has(self.extraArgs) || has(self.extraVolumes) || has(self.extraEnvs)",message="must set at least one of extraArgs, extraVolumes or extraEnvs, or be left out instead of written as an empty object ({})"
type Scheduler struct {
	// extraArgs are extra kube-scheduler flags, without leading dashes; they override kubeadm's
	// defaults.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +listMapKey=value
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.name == y.name))",message="extraArgs names must be unique: kubeadm turns each entry into one --name=value flag of the component; keep a single entry per name"
	ExtraArgs []Arg `json:"extraArgs,omitempty"`

	// extraVolumes are extra host directories or files mounted into the kube-scheduler static Pod.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraVolumes []HostPathMount `json:"extraVolumes,omitempty"`

	// extraEnvs are extra environment variables of the kube-scheduler container; they override the
	// variables kubeadm sets, including the *_proxy ones it copies from the node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraEnvs *[]EnvVar `json:"extraEnvs,omitempty"`
}

// DNS configures the image of the cluster DNS add-on.
// +kubebuilder:validation:XValidation:rule="has(self.imageRepository) || has(self.imageTag)",message="must set at least one of imageRepository or imageTag, or be left out instead of written as an empty object ({})"
type DNS struct {
	// imageRepository is the registry to pull the DNS image from; defaults to
	// clusterConfiguration.imageRepository.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ImageRepository string `json:"imageRepository,omitempty"`

	// imageTag pins the DNS image tag. When set, kubeadm no longer changes the DNS image on upgrades.
	// It must be an image tag that reads as a version (v1.14.6, 1.14.6, 1.14): the control plane
	// compares it to decide on upgrades, as upstream checks.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_][A-Za-z0-9_.-]*$') && isSemver(self.replace('_', '+'), true)",messageExpression="'imageTag \"' + self + '\" is not a versioned image tag: write the CoreDNS version, e.g. v1.14.6 or 1.14.6 (letters, digits, \".\", \"-\" and \"_\" only)'"
	ImageTag string `json:"imageTag,omitempty"`
}

// Arg is one command-line flag of a component: name without leading dashes, and value.
type Arg struct {
	// name of the flag, without leading dashes, e.g. "v" for --v.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// value of the flag; may be empty. A pointer so that an empty value is kept rather than dropped.
	// +required
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=1024
	Value *string `json:"value,omitempty"`
}

// EnvVar is an environment variable of a control plane container, as in a Pod spec.
type EnvVar struct {
	corev1.EnvVar `json:",inline"`
}

// HostPathMount is a host path mounted into a control plane static Pod.
type HostPathMount struct {
	// name of the volume in the Pod.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Name string `json:"name,omitempty"`

	// hostPath is the path on the node.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	HostPath string `json:"hostPath,omitempty"`

	// mountPath is where hostPath appears in the container.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	MountPath string `json:"mountPath,omitempty"`

	// readOnly mounts the volume read-only.
	// +optional
	ReadOnly *bool `json:"readOnly,omitempty"`

	// pathType is the type of hostPath the kubelet checks for or creates: DirectoryOrCreate,
	// Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice; unset (or "") means no
	// check. The kubelet refuses a static Pod with any other value, so the schema does too.
	// +optional
	// +kubebuilder:validation:Enum="";DirectoryOrCreate;Directory;FileOrCreate;File;Socket;CharDevice;BlockDevice
	PathType corev1.HostPathType `json:"pathType,omitempty"`
}
