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

package kubeadm

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The structs below mirror kubeadm.k8s.io/v1beta4 (cmd/kubeadm/app/apis/kubeadm/v1beta4 of
// Kubernetes v1.37), restricted to the fields Capstan sets. Optional sub-objects use omitzero so
// that an unset block is left out and kubeadm applies its own default.

// APIVersion is the kubeadm configuration API version the documents are written in.
const APIVersion = "kubeadm.k8s.io/v1beta4"

// Kinds of the documents.
const (
	ClusterConfigurationKind = "ClusterConfiguration"
	InitConfigurationKind    = "InitConfiguration"
	JoinConfigurationKind    = "JoinConfiguration"
)

// ClusterConfiguration is kubeadm's cluster-wide configuration, read by "kubeadm init".
type ClusterConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	Etcd                 Etcd                  `json:"etcd,omitzero"`
	Networking           Networking            `json:"networking,omitzero"`
	KubernetesVersion    string                `json:"kubernetesVersion,omitempty"`
	ControlPlaneEndpoint string                `json:"controlPlaneEndpoint,omitempty"`
	APIServer            APIServer             `json:"apiServer,omitzero"`
	ControllerManager    ControlPlaneComponent `json:"controllerManager,omitzero"`
	Scheduler            ControlPlaneComponent `json:"scheduler,omitzero"`
	DNS                  DNS                   `json:"dns,omitzero"`
	CertificatesDir      string                `json:"certificatesDir,omitempty"`
	ImageRepository      string                `json:"imageRepository,omitempty"`
	FeatureGates         map[string]bool       `json:"featureGates,omitempty"`
	ClusterName          string                `json:"clusterName,omitempty"`

	CertificateValidityPeriod   *metav1.Duration `json:"certificateValidityPeriod,omitempty"`
	CACertificateValidityPeriod *metav1.Duration `json:"caCertificateValidityPeriod,omitempty"`
	EncryptionAlgorithm         string           `json:"encryptionAlgorithm,omitempty"`
}

// Etcd configures etcd: the local (stacked) member or an external cluster.
type Etcd struct {
	Local    LocalEtcd     `json:"local,omitzero"`
	External *ExternalEtcd `json:"external,omitempty"`
}

// LocalEtcd configures the etcd static Pod on a control plane node. The image fields are
// kubeadm's inlined ImageMeta.
type LocalEtcd struct {
	ImageRepository string   `json:"imageRepository,omitempty"`
	ImageTag        string   `json:"imageTag,omitempty"`
	DataDir         string   `json:"dataDir,omitempty"`
	ExtraArgs       []Arg    `json:"extraArgs,omitempty"`
	ExtraEnvs       []EnvVar `json:"extraEnvs,omitempty"`
	ServerCertSANs  []string `json:"serverCertSANs,omitempty"`
	PeerCertSANs    []string `json:"peerCertSANs,omitempty"`
}

// ExternalEtcd is an etcd cluster the API servers connect to; kubeadm runs no member.
type ExternalEtcd struct {
	Endpoints []string `json:"endpoints"`
	CAFile    string   `json:"caFile"`
	CertFile  string   `json:"certFile"`
	KeyFile   string   `json:"keyFile"`
}

// Networking holds the cluster's networks. Dual-stack ranges are comma-separated.
type Networking struct {
	ServiceSubnet string `json:"serviceSubnet,omitempty"`
	PodSubnet     string `json:"podSubnet,omitempty"`
	DNSDomain     string `json:"dnsDomain,omitempty"`
}

// ControlPlaneComponent holds the settings of a control plane component.
type ControlPlaneComponent struct {
	ExtraArgs    []Arg           `json:"extraArgs,omitempty"`
	ExtraVolumes []HostPathMount `json:"extraVolumes,omitempty"`
	ExtraEnvs    []EnvVar        `json:"extraEnvs,omitempty"`
}

// HostPathMount is a host path mounted into a control plane static Pod.
type HostPathMount struct {
	Name      string              `json:"name"`
	HostPath  string              `json:"hostPath"`
	MountPath string              `json:"mountPath"`
	ReadOnly  bool                `json:"readOnly,omitempty"`
	PathType  corev1.HostPathType `json:"pathType,omitempty"`
}

// EnvVar is an environment variable of a control plane container; kubeadm inlines corev1.EnvVar.
type EnvVar struct {
	corev1.EnvVar `json:",inline"`
}

// APIServer holds the settings of the kube-apiserver.
type APIServer struct {
	ControlPlaneComponent `json:",inline"`
	CertSANs              []string `json:"certSANs,omitempty"`
}

// DNS configures the image of the DNS add-on.
type DNS struct {
	ImageRepository string `json:"imageRepository,omitempty"`
	ImageTag        string `json:"imageTag,omitempty"`
}

// Arg is one flag, name without leading dashes. kubeadm requires both keys, so the value is
// always written, even when empty.
type Arg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// InitConfiguration holds the settings of "kubeadm init".
type InitConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	BootstrapTokens  []BootstrapToken        `json:"bootstrapTokens,omitempty"`
	NodeRegistration NodeRegistrationOptions `json:"nodeRegistration,omitzero"`
	LocalAPIEndpoint APIEndpoint             `json:"localAPIEndpoint,omitzero"`
	SkipPhases       []string                `json:"skipPhases,omitempty"`
	Patches          Patches                 `json:"patches,omitzero"`
	Timeouts         Timeouts                `json:"timeouts,omitzero"`
}

// BootstrapToken is a token "kubeadm init" creates.
type BootstrapToken struct {
	Token       string           `json:"token"`
	Description string           `json:"description,omitempty"`
	TTL         *metav1.Duration `json:"ttl,omitempty"`
	Usages      []string         `json:"usages,omitempty"`
	Groups      []string         `json:"groups,omitempty"`
}

// NodeRegistrationOptions configures how a node registers. Taints is a pointer because kubeadm
// tells an absent list (its default: the control-plane taint on control plane nodes) from an
// empty one (no taints).
type NodeRegistrationOptions struct {
	Name                  string            `json:"name,omitempty"`
	CRISocket             string            `json:"criSocket,omitempty"`
	Taints                *[]corev1.Taint   `json:"taints,omitempty"`
	KubeletExtraArgs      []Arg             `json:"kubeletExtraArgs,omitempty"`
	IgnorePreflightErrors []string          `json:"ignorePreflightErrors,omitempty"`
	ImagePullPolicy       corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	ImagePullSerial       *bool             `json:"imagePullSerial,omitempty"`
}

// APIEndpoint is the address and port of one API server instance.
type APIEndpoint struct {
	AdvertiseAddress string `json:"advertiseAddress,omitempty"`
	BindPort         int32  `json:"bindPort,omitempty"`
}

// Patches configures kubeadm patches.
type Patches struct {
	Directory string `json:"directory,omitempty"`
}

// Timeouts bounds the steps of kubeadm commands; v1beta4 writes them as durations.
type Timeouts struct {
	ControlPlaneComponentHealthCheck *metav1.Duration `json:"controlPlaneComponentHealthCheck,omitempty"`
	KubeletHealthCheck               *metav1.Duration `json:"kubeletHealthCheck,omitempty"`
	KubernetesAPICall                *metav1.Duration `json:"kubernetesAPICall,omitempty"`
	EtcdAPICall                      *metav1.Duration `json:"etcdAPICall,omitempty"`
	TLSBootstrap                     *metav1.Duration `json:"tlsBootstrap,omitempty"`
	Discovery                        *metav1.Duration `json:"discovery,omitempty"`
}

// JoinConfiguration holds the settings of "kubeadm join".
type JoinConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	NodeRegistration NodeRegistrationOptions `json:"nodeRegistration,omitzero"`
	CACertPath       string                  `json:"caCertPath,omitempty"`
	Discovery        Discovery               `json:"discovery"`
	ControlPlane     *JoinControlPlane       `json:"controlPlane,omitempty"`
	SkipPhases       []string                `json:"skipPhases,omitempty"`
	Patches          Patches                 `json:"patches,omitzero"`
	Timeouts         Timeouts                `json:"timeouts,omitzero"`
}

// Discovery says how a joining node finds and trusts the API server: with a bootstrap token or
// from a kubeconfig file.
type Discovery struct {
	BootstrapToken    *BootstrapTokenDiscovery `json:"bootstrapToken,omitempty"`
	File              *FileDiscovery           `json:"file,omitempty"`
	TLSBootstrapToken string                   `json:"tlsBootstrapToken,omitempty"`
}

// FileDiscovery names the kubeconfig file (path or URL) holding the cluster information.
type FileDiscovery struct {
	KubeConfigPath string `json:"kubeConfigPath"`
}

// BootstrapTokenDiscovery configures discovery with a bootstrap token.
type BootstrapTokenDiscovery struct {
	Token                    string   `json:"token"`
	APIServerEndpoint        string   `json:"apiServerEndpoint,omitempty"`
	CACertHashes             []string `json:"caCertHashes,omitempty"`
	UnsafeSkipCAVerification bool     `json:"unsafeSkipCAVerification,omitempty"`
}

// JoinControlPlane makes a joining node a control plane node; present but empty is meaningful.
type JoinControlPlane struct {
	LocalAPIEndpoint APIEndpoint `json:"localAPIEndpoint,omitzero"`
}
