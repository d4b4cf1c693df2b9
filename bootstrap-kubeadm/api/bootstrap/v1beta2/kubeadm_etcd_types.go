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

// Etcd configures etcd: either the local member kubeadm runs on each control plane node
// (stacked etcd, the default) or an external etcd cluster.
// +kubebuilder:validation:XValidation:rule="has(self.local) || has(self.external)",message="must set local or external, or be left out instead of written as an empty object ({})"
// +kubebuilder:validation:XValidation:rule="!(has(self.local) && has(self.external))",message="local and external are mutually exclusive: etcd either runs on the control plane nodes (local) or is an existing cluster the API servers connect to (external); keep one of them"
type Etcd struct {
	// local configures the etcd member kubeadm runs as a static Pod on each control plane node.
	// +optional
	Local LocalEtcd `json:"local,omitempty,omitzero"`

	// external makes the API servers use an existing etcd cluster: kubeadm runs no etcd member,
	// and the control plane does not manage etcd membership.
	// +optional
	External ExternalEtcd `json:"external,omitempty,omitzero"`
}

// LocalEtcd configures the etcd member kubeadm runs on a control plane node.
// +kubebuilder:validation:XValidation:rule="has(self.imageRepository) || has(self.imageTag) || has(self.dataDir) || has(self.extraArgs) || has(self.extraEnvs) || has(self.serverCertSANs) || has(self.peerCertSANs)",message="must set at least one of imageRepository, imageTag, dataDir, extraArgs, extraEnvs, serverCertSANs or peerCertSANs, or be left out instead of written as an empty object ({})"
type LocalEtcd struct {
	// imageRepository is the registry to pull the etcd image from; defaults to
	// clusterConfiguration.imageRepository.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ImageRepository string `json:"imageRepository,omitempty"`

	// imageTag pins the etcd image tag. When set, kubeadm no longer changes the etcd image on
	// upgrades.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	ImageTag string `json:"imageTag,omitempty"`

	// dataDir is the directory etcd stores its data in. Defaults to /var/lib/etcd.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	DataDir string `json:"dataDir,omitempty"`

	// extraArgs are extra etcd flags, without leading dashes; they override kubeadm's defaults.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +listMapKey=value
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.name == y.name))",message="extraArgs names must be unique: kubeadm turns each entry into one --name=value flag of the component; keep a single entry per name"
	ExtraArgs []Arg `json:"extraArgs,omitempty"`

	// extraEnvs are extra environment variables of the etcd container; they override the
	// variables kubeadm sets, including the *_proxy ones it copies from the node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ExtraEnvs *[]EnvVar `json:"extraEnvs,omitempty"`

	// serverCertSANs are extra Subject Alternative Names for etcd's serving certificate.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	ServerCertSANs []string `json:"serverCertSANs,omitempty"`

	// peerCertSANs are extra Subject Alternative Names for etcd's peer certificate.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	PeerCertSANs []string `json:"peerCertSANs,omitempty"`
}

// ExternalEtcd is an existing etcd cluster the API servers connect to. The bootstrap provider
// writes the files it names on each control plane node from the Cluster's Secrets
// <cluster>-etcd (the etcd CA certificate, tls.crt) and <cluster>-apiserver-etcd-client (the
// client certificate and key, tls.crt and tls.key), which the user creates.
type ExternalEtcd struct {
	// endpoints are the URLs of the etcd members, e.g. https://10.0.0.5:2379.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	Endpoints []string `json:"endpoints,omitempty"`

	// caFile is the path on the node of the CA certificate that signs etcd's serving certificate.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CAFile string `json:"caFile,omitempty"`

	// certFile is the path on the node of the API server's etcd client certificate.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CertFile string `json:"certFile,omitempty"`

	// keyFile is the path on the node of the API server's etcd client key.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	KeyFile string `json:"keyFile,omitempty"`
}

// IsDefined reports whether the external etcd is configured.
func (e *ExternalEtcd) IsDefined() bool {
	return e != nil && (len(e.Endpoints) > 0 || e.CAFile != "" || e.CertFile != "" || e.KeyFile != "")
}
