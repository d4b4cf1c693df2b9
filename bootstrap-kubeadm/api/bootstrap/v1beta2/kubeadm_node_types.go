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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InitConfiguration holds the settings specific to "kubeadm init", run on the first control
// plane node only.
// +kubebuilder:validation:XValidation:rule="has(self.bootstrapTokens) || has(self.nodeRegistration) || has(self.localAPIEndpoint) || has(self.skipPhases) || has(self.patches) || has(self.timeouts)",message="must set at least one of bootstrapTokens, nodeRegistration, localAPIEndpoint, skipPhases, patches or timeouts, or be left out instead of written as an empty object ({})"
type InitConfiguration struct {
	// bootstrapTokens are bootstrap tokens "kubeadm init" creates. They are not needed for Machines
	// to join: the bootstrap controller creates its own tokens.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	BootstrapTokens []BootstrapToken `json:"bootstrapTokens,omitempty"`

	// nodeRegistration configures how the node registers with the cluster. For control plane
	// nodes keep it consistent with joinConfiguration.nodeRegistration.
	// +optional
	NodeRegistration NodeRegistrationOptions `json:"nodeRegistration,omitempty,omitzero"`

	// localAPIEndpoint is the address and port the API server on this node advertises and binds
	// to; unlike the Cluster's controlPlaneEndpoint it is specific to this node.
	// +optional
	LocalAPIEndpoint APIEndpoint `json:"localAPIEndpoint,omitempty,omitzero"`

	// skipPhases lists "kubeadm init" phases to skip, e.g. addon/kube-proxy.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	SkipPhases []string `json:"skipPhases,omitempty"`

	// patches configures kubeadm patches applied to the static Pod manifests it writes.
	// +optional
	Patches Patches `json:"patches,omitempty,omitzero"`

	// timeouts bounds the steps of "kubeadm init".
	// +optional
	Timeouts Timeouts `json:"timeouts,omitempty,omitzero"`
}

// JoinConfiguration holds the settings of "kubeadm join", run on every node but the first
// control plane node.
// +kubebuilder:validation:XValidation:rule="has(self.nodeRegistration) || has(self.caCertPath) || has(self.discovery) || has(self.controlPlane) || has(self.skipPhases) || has(self.patches) || has(self.timeouts)",message="must set at least one of nodeRegistration, caCertPath, discovery, controlPlane, skipPhases, patches or timeouts, or be left out instead of written as an empty object ({})"
type JoinConfiguration struct {
	// nodeRegistration configures how the node registers with the cluster.
	// +optional
	NodeRegistration NodeRegistrationOptions `json:"nodeRegistration,omitempty,omitzero"`

	// caCertPath is where the joining node stores the cluster CA certificate it trusts.
	// kubeadm's default is /etc/kubernetes/pki/ca.crt.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CACertPath string `json:"caCertPath,omitempty"`

	// discovery says how the joining node finds and trusts the cluster's API server. The
	// bootstrap controller fills in the token, the endpoint and the CA hashes when they are unset.
	// +optional
	Discovery Discovery `json:"discovery,omitempty,omitzero"`

	// controlPlane, when set, makes the node join as an additional control plane node. It must be
	// unset for workers.
	// +optional
	ControlPlane *JoinControlPlane `json:"controlPlane,omitempty"`

	// skipPhases lists "kubeadm join" phases to skip.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	SkipPhases []string `json:"skipPhases,omitempty"`

	// patches configures kubeadm patches applied to the static Pod manifests it writes.
	// +optional
	Patches Patches `json:"patches,omitempty,omitzero"`

	// timeouts bounds the steps of "kubeadm join".
	// +optional
	Timeouts Timeouts `json:"timeouts,omitempty,omitzero"`
}

// JoinControlPlane configures the control plane instance of a joining control plane node.
type JoinControlPlane struct {
	// localAPIEndpoint is the address and port the API server on this node advertises and binds to.
	// +optional
	LocalAPIEndpoint APIEndpoint `json:"localAPIEndpoint,omitempty,omitzero"`
}

// APIEndpoint is the address and port of one API server instance.
// +kubebuilder:validation:XValidation:rule="has(self.advertiseAddress) || has(self.bindPort)",message="must set at least one of advertiseAddress or bindPort, or be left out instead of written as an empty object ({})"
type APIEndpoint struct {
	// advertiseAddress is the IP address the API server advertises.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=39
	AdvertiseAddress string `json:"advertiseAddress,omitempty"`

	// bindPort is the port the API server listens on. Defaults to 6443.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	BindPort int32 `json:"bindPort,omitempty"`
}

// NodeRegistrationOptions configures how a node registers with the cluster, for both
// "kubeadm init" and "kubeadm join".
// +kubebuilder:validation:XValidation:rule="has(self.name) || has(self.criSocket) || has(self.taints) || has(self.kubeletExtraArgs) || has(self.ignorePreflightErrors) || has(self.imagePullPolicy) || has(self.imagePullSerial)",message="must set at least one of name, criSocket, taints, kubeletExtraArgs, ignorePreflightErrors, imagePullPolicy or imagePullSerial, or be left out instead of written as an empty object ({})"
type NodeRegistrationOptions struct {
	// name of the Node object; also the common name of the kubelet's client certificate.
	// Defaults to the node's hostname.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// criSocket is the container runtime's socket, e.g. unix:///var/run/containerd/containerd.sock.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	CRISocket string `json:"criSocket,omitempty"`

	// taints the Node registers with. Unset means kubeadm's default: the control-plane taint on
	// control plane nodes, none on workers. An empty list means no taints at all.
	// +optional
	// +kubebuilder:validation:MinItems=0
	// +kubebuilder:validation:MaxItems=100
	Taints *[]corev1.Taint `json:"taints,omitempty"`

	// kubeletExtraArgs are extra kubelet flags for this node, without leading dashes.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +listMapKey=value
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.name == y.name))",message="kubeletExtraArgs names must be unique: kubeadm turns each entry into one --name=value kubelet flag; keep a single entry per name"
	KubeletExtraArgs []Arg `json:"kubeletExtraArgs,omitempty"`

	// ignorePreflightErrors lists kubeadm preflight checks whose errors are ignored on this node,
	// e.g. Swap; "all" ignores every check.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	IgnorePreflightErrors []string `json:"ignorePreflightErrors,omitempty"`

	// imagePullPolicy is how kubeadm pulls images during init and join: Always, IfNotPresent
	// (kubeadm's default) or Never.
	// +optional
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// imagePullSerial makes kubeadm pull images one at a time (true, kubeadm's default) or in
	// parallel (false).
	// +optional
	ImagePullSerial *bool `json:"imagePullSerial,omitempty"`
}

// BootstrapToken is a bootstrap token "kubeadm init" creates.
// +kubebuilder:validation:XValidation:rule="!has(self.expires)",fieldPath=".expires",message="expires is not supported: kubeadm v1.37 refuses it in its configuration file (it defaults ttl to 24h, then finds ttl and expires both set) so kubeadm init would fail on the node; use ttlSeconds instead"
type BootstrapToken struct {
	// token is the token itself, "<6 characters>.<16 characters>" of [a-z0-9].
	// +required
	// +kubebuilder:validation:MaxLength=23
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]{6}[.][a-z0-9]{16}$')",message="token must be 6 characters of a-z and 0-9, a dot, then 16 characters of a-z and 0-9 (e.g. abcdef.0123456789abcdef, as \"kubeadm token generate\" prints); or leave bootstrapTokens out and kubeadm creates one"
	Token string `json:"token,omitempty"`

	// description says why the token exists, for other administrators.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Description string `json:"description,omitempty"`

	// ttlSeconds is how long the token is valid. Defaults to 24 hours.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TTLSeconds *int32 `json:"ttlSeconds,omitempty"`

	// expires is when the token expires, RFC3339 (upstream's alternative to ttlSeconds). It is
	// refused at admission: kubeadm v1.37 cannot take it from a configuration file (its defaulting
	// sets ttl, and its validation then refuses both being set).
	// +optional
	Expires metav1.Time `json:"expires,omitempty,omitzero"`

	// usages are the ways the token may be used, e.g. signing and authentication.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Usages []string `json:"usages,omitempty"`

	// groups are the extra groups the token authenticates as.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Groups []string `json:"groups,omitempty"`
}

// Patches configures kubeadm patches.
// +kubebuilder:validation:XValidation:rule="has(self.directory)",message="must set directory, or be left out instead of written as an empty object ({})"
type Patches struct {
	// directory holds patch files named "target[suffix][+patchtype].extension", e.g.
	// kube-apiserver0+merge.yaml; targets are kube-apiserver, kube-controller-manager,
	// kube-scheduler, etcd and kubeletconfiguration. Write the files with spec.files.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Directory string `json:"directory,omitempty"`
}

// Timeouts bounds the steps of kubeadm commands. Unset fields keep kubeadm's defaults.
// +kubebuilder:validation:XValidation:rule="has(self.controlPlaneComponentHealthCheckSeconds) || has(self.kubeletHealthCheckSeconds) || has(self.kubernetesAPICallSeconds) || has(self.etcdAPICallSeconds) || has(self.tlsBootstrapSeconds) || has(self.discoverySeconds)",message="must set at least one of controlPlaneComponentHealthCheckSeconds, kubeletHealthCheckSeconds, kubernetesAPICallSeconds, etcdAPICallSeconds, tlsBootstrapSeconds or discoverySeconds, or be left out instead of written as an empty object ({})"
type Timeouts struct {
	// controlPlaneComponentHealthCheckSeconds bounds the wait for control plane components
	// (e.g. the API server) to become healthy. kubeadm's default is 240.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ControlPlaneComponentHealthCheckSeconds *int32 `json:"controlPlaneComponentHealthCheckSeconds,omitempty"`

	// kubeletHealthCheckSeconds bounds the wait for the kubelet to become healthy. kubeadm's
	// default is 240.
	// +optional
	// +kubebuilder:validation:Minimum=0
	KubeletHealthCheckSeconds *int32 `json:"kubeletHealthCheckSeconds,omitempty"`

	// kubernetesAPICallSeconds bounds each request kubeadm makes to the API server. kubeadm's
	// default is 60.
	// +optional
	// +kubebuilder:validation:Minimum=0
	KubernetesAPICallSeconds *int32 `json:"kubernetesAPICallSeconds,omitempty"`

	// etcdAPICallSeconds bounds each request kubeadm makes to etcd. kubeadm's default is 120.
	// +optional
	// +kubebuilder:validation:Minimum=0
	EtcdAPICallSeconds *int32 `json:"etcdAPICallSeconds,omitempty"`

	// tlsBootstrapSeconds bounds the kubelet's TLS bootstrap on a joining node. kubeadm's default
	// is 300.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TLSBootstrapSeconds *int32 `json:"tlsBootstrapSeconds,omitempty"`

	// discoverySeconds bounds the validation of the API server's identity on a joining node.
	// kubeadm's default is 300.
	// +optional
	// +kubebuilder:validation:Minimum=0
	DiscoverySeconds *int32 `json:"discoverySeconds,omitempty"`
}
