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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// The kubeadm configuration as upstream's v1beta1 embeds it (kubeadm's v1beta3 shape). Fields
// that map one to one reuse the v1beta2 types.

// ClusterConfiguration is kubeadm's cluster-wide configuration.
type ClusterConfiguration struct {
	// apiVersion and kind are ignored: the generator writes kubeadm's own.
	metav1.TypeMeta `json:",inline"`
	// +optional
	Etcd Etcd `json:"etcd,omitempty"`
	// networking is ignored: the values come from the Cluster.
	// +optional
	Networking Networking `json:"networking,omitempty"`
	// kubernetesVersion is ignored: the version comes from the Machine or KubeadmControlPlane.
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// +optional
	ControlPlaneEndpoint string `json:"controlPlaneEndpoint,omitempty"`
	// +optional
	APIServer APIServer `json:"apiServer,omitempty"`
	// +optional
	ControllerManager ControlPlaneComponent `json:"controllerManager,omitempty"`
	// +optional
	Scheduler ControlPlaneComponent `json:"scheduler,omitempty"`
	// +optional
	DNS DNS `json:"dns,omitempty"`
	// +optional
	CertificatesDir string `json:"certificatesDir,omitempty"`
	// +optional
	ImageRepository string `json:"imageRepository,omitempty"`
	// +optional
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// clusterName is ignored: the name comes from the Cluster.
	// +optional
	ClusterName string `json:"clusterName,omitempty"`
	// +optional
	CertificateValidityPeriodDays int32 `json:"certificateValidityPeriodDays,omitempty"`
	// +optional
	CACertificateValidityPeriodDays int32 `json:"caCertificateValidityPeriodDays,omitempty"`
	// +optional
	EncryptionAlgorithm bootstrapv1.EncryptionAlgorithmType `json:"encryptionAlgorithm,omitempty"`
}

// ControlPlaneComponent holds settings common to control plane components.
type ControlPlaneComponent struct {
	// +optional
	ExtraArgs map[string]string `json:"extraArgs,omitempty"`
	// +optional
	ExtraVolumes []HostPathMount `json:"extraVolumes,omitempty"`
	// +optional
	ExtraEnvs []bootstrapv1.EnvVar `json:"extraEnvs,omitempty"`
}

// APIServer holds settings for the API server.
type APIServer struct {
	ControlPlaneComponent `json:",inline"`
	// +optional
	CertSANs []string `json:"certSANs,omitempty"`
	// timeoutForControlPlane is kubeadm's wait for the control plane (init and join).
	// +optional
	TimeoutForControlPlane *metav1.Duration `json:"timeoutForControlPlane,omitempty"`
}

// ImageMeta names a container image.
type ImageMeta struct {
	// +optional
	ImageRepository string `json:"imageRepository,omitempty"`
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
}

// DNS is the cluster DNS add-on.
type DNS struct {
	ImageMeta `json:",inline"`
}

// Etcd is local or external etcd.
type Etcd struct {
	// +optional
	Local *LocalEtcd `json:"local,omitempty"`
	// +optional
	External *bootstrapv1.ExternalEtcd `json:"external,omitempty"`
}

// LocalEtcd is etcd run by kubeadm on the control plane machines.
type LocalEtcd struct {
	ImageMeta `json:",inline"`
	// +optional
	DataDir string `json:"dataDir,omitempty"`
	// +optional
	ExtraArgs map[string]string `json:"extraArgs,omitempty"`
	// +optional
	ExtraEnvs []bootstrapv1.EnvVar `json:"extraEnvs,omitempty"`
	// +optional
	ServerCertSANs []string `json:"serverCertSANs,omitempty"`
	// +optional
	PeerCertSANs []string `json:"peerCertSANs,omitempty"`
}

// Networking is ignored (v1beta2 takes it from the Cluster); it is kept as written.
type Networking struct {
	// +optional
	ServiceSubnet string `json:"serviceSubnet,omitempty"`
	// +optional
	PodSubnet string `json:"podSubnet,omitempty"`
	// +optional
	DNSDomain string `json:"dnsDomain,omitempty"`
}

// HostPathMount is a host path mounted into a static pod.
type HostPathMount struct {
	Name      string `json:"name"`
	HostPath  string `json:"hostPath"`
	MountPath string `json:"mountPath"`
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`
	// +optional
	PathType corev1.HostPathType `json:"pathType,omitempty"`
}

// InitConfiguration is kubeadm init's node-specific configuration.
type InitConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	BootstrapTokens []BootstrapToken `json:"bootstrapTokens,omitempty"`
	// +optional
	NodeRegistration NodeRegistrationOptions `json:"nodeRegistration,omitempty"`
	// +optional
	LocalAPIEndpoint APIEndpoint `json:"localAPIEndpoint,omitempty"`
	// +optional
	SkipPhases []string `json:"skipPhases,omitempty"`
	// +optional
	Patches *bootstrapv1.Patches `json:"patches,omitempty"`
}

// JoinConfiguration is kubeadm join's configuration.
type JoinConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	NodeRegistration NodeRegistrationOptions `json:"nodeRegistration,omitempty"`
	// +optional
	CACertPath string `json:"caCertPath,omitempty"`
	// +optional
	Discovery Discovery `json:"discovery,omitempty"`
	// +optional
	ControlPlane *JoinControlPlane `json:"controlPlane,omitempty"`
	// +optional
	SkipPhases []string `json:"skipPhases,omitempty"`
	// +optional
	Patches *bootstrapv1.Patches `json:"patches,omitempty"`
}

// APIEndpoint is where a control plane node's API server listens.
type APIEndpoint struct {
	// +optional
	AdvertiseAddress string `json:"advertiseAddress,omitempty"`
	// +optional
	BindPort int32 `json:"bindPort,omitempty"`
}

// JoinControlPlane makes a joining node a control plane node.
type JoinControlPlane struct {
	// +optional
	LocalAPIEndpoint APIEndpoint `json:"localAPIEndpoint,omitempty"`
}

// NodeRegistrationOptions are how a node registers.
type NodeRegistrationOptions struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	CRISocket string `json:"criSocket,omitempty"`
	// taints: an empty list means no taints (left out, kubeadm adds the control plane taint).
	// No omitempty, as upstream: a client must be able to send the empty list; so a Go client
	// (and the down-conversion, when an admission policy makes the API server convert a v1beta1
	// request to v1beta2 and back) sends null when none is given, which the schema must accept.
	// +optional
	// +nullable
	Taints []corev1.Taint `json:"taints"`
	// +optional
	KubeletExtraArgs map[string]string `json:"kubeletExtraArgs,omitempty"`
	// +optional
	IgnorePreflightErrors []string `json:"ignorePreflightErrors,omitempty"`
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// +optional
	ImagePullSerial *bool `json:"imagePullSerial,omitempty"`
}

// BootstrapToken is a kubeadm bootstrap token.
type BootstrapToken struct {
	// +optional
	Token string `json:"token,omitempty"`
	// +optional
	Description string `json:"description,omitempty"`
	// +optional
	TTL *metav1.Duration `json:"ttl,omitempty"`
	// +optional
	Expires *metav1.Time `json:"expires,omitempty"`
	// +optional
	Usages []string `json:"usages,omitempty"`
	// +optional
	Groups []string `json:"groups,omitempty"`
}

// Discovery is how a joining node finds and trusts the cluster.
type Discovery struct {
	// +optional
	BootstrapToken *BootstrapTokenDiscovery `json:"bootstrapToken,omitempty"`
	// +optional
	File *FileDiscovery `json:"file,omitempty"`
	// +optional
	TLSBootstrapToken string `json:"tlsBootstrapToken,omitempty"`
	// timeout is kubeadm's TLS bootstrap timeout.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// BootstrapTokenDiscovery is token-based discovery.
type BootstrapTokenDiscovery struct {
	// +optional
	Token string `json:"token,omitempty"`
	// +optional
	APIServerEndpoint string `json:"apiServerEndpoint,omitempty"`
	// +optional
	CACertHashes []string `json:"caCertHashes,omitempty"`
	// +optional
	UnsafeSkipCAVerification bool `json:"unsafeSkipCAVerification,omitempty"`
}

// FileDiscovery is discovery through a kubeconfig file.
type FileDiscovery struct {
	// +optional
	KubeConfigPath string `json:"kubeConfigPath,omitempty"`
	// +optional
	KubeConfig *FileDiscoveryKubeConfig `json:"kubeConfig,omitempty"`
}

// FileDiscoveryKubeConfig is a kubeconfig file's content.
type FileDiscoveryKubeConfig struct {
	// +optional
	Cluster *KubeConfigCluster `json:"cluster,omitempty"`
	// +optional
	User KubeConfigUser `json:"user,omitempty"`
}

// KubeConfigCluster is the kubeconfig's cluster.
type KubeConfigCluster struct {
	// +optional
	Server string `json:"server,omitempty"`
	// +optional
	TLSServerName string `json:"tlsServerName,omitempty"`
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`
	// +optional
	CertificateAuthorityData []byte `json:"certificateAuthorityData,omitempty"`
	// +optional
	ProxyURL string `json:"proxyURL,omitempty"`
}

// KubeConfigUser is the kubeconfig's user.
type KubeConfigUser struct {
	// +optional
	AuthProvider *bootstrapv1.KubeConfigAuthProvider `json:"authProvider,omitempty"`
	// +optional
	Exec *KubeConfigAuthExec `json:"exec,omitempty"`
}

// KubeConfigAuthExec is an exec credential plugin.
type KubeConfigAuthExec struct {
	// +optional
	Command string `json:"command,omitempty"`
	// +optional
	Args []string `json:"args,omitempty"`
	// +optional
	Env []bootstrapv1.KubeConfigAuthExecEnv `json:"env,omitempty"`
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// +optional
	ProvideClusterInfo bool `json:"provideClusterInfo,omitempty"`
}
