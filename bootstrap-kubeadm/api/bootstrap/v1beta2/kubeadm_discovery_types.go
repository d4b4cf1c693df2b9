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

// Discovery says how a joining node finds and trusts the cluster's API server: with a
// bootstrap token (the default: the bootstrap controller fills it in) or with a kubeconfig file.
// +kubebuilder:validation:XValidation:rule="has(self.bootstrapToken) || has(self.file) || has(self.tlsBootstrapToken)",message="must set at least one of bootstrapToken, file or tlsBootstrapToken, or be left out instead of written as an empty object ({})"
// +kubebuilder:validation:XValidation:rule="!(has(self.bootstrapToken) && has(self.file))",message="bootstrapToken and file are mutually exclusive: the node discovers the cluster either with a bootstrap token or from a kubeconfig file; keep one of them"
type Discovery struct {
	// bootstrapToken configures discovery with a bootstrap token.
	// +optional
	BootstrapToken BootstrapTokenDiscovery `json:"bootstrapToken,omitempty,omitzero"`

	// file configures discovery from a kubeconfig file on the node. The bootstrap controller then
	// creates no bootstrap token: the kubeconfig (or tlsBootstrapToken) must let the kubelet
	// authenticate.
	// +optional
	File FileDiscovery `json:"file,omitempty,omitzero"`

	// tlsBootstrapToken is the token the kubelet uses for its TLS bootstrap. With bootstrapToken
	// discovery it defaults to bootstrapToken.token; with file discovery it must be set unless
	// the kubeconfig file carries credentials.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	TLSBootstrapToken string `json:"tlsBootstrapToken,omitempty"`
}

// BootstrapTokenDiscovery configures discovery with a bootstrap token.
// +kubebuilder:validation:XValidation:rule="has(self.token) || has(self.apiServerEndpoint) || has(self.caCertHashes) || has(self.unsafeSkipCAVerification)",message="must set at least one of token, apiServerEndpoint, caCertHashes or unsafeSkipCAVerification, or be left out instead of written as an empty object ({})"
type BootstrapTokenDiscovery struct {
	// token authenticates the joining node and validates the cluster information it fetches.
	// When unset, the bootstrap controller creates a token and writes it here (see the
	// bootstrap.cluster.x-k8s.io/managed-bootstrap-token annotation), keeps it valid while the
	// owner has not joined, and replaces it before it expires for a MachinePool whose
	// infrastructure is provisioned. A token set by the user is used as is.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Token string `json:"token,omitempty"`

	// apiServerEndpoint is the host:port the cluster information is fetched from. Defaults to the
	// Cluster's controlPlaneEndpoint.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	APIServerEndpoint string `json:"apiServerEndpoint,omitempty"`

	// caCertHashes pin the cluster CA's public key, each "sha256:<hex>". When unset, the bootstrap
	// controller computes them from the cluster CA.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	CACertHashes []string `json:"caCertHashes,omitempty"`

	// unsafeSkipCAVerification lets discovery proceed without caCertHashes, so that any server
	// presenting the token is trusted.
	// +optional
	UnsafeSkipCAVerification *bool `json:"unsafeSkipCAVerification,omitempty"`
}

// FileDiscovery configures discovery from a kubeconfig file on the node.
type FileDiscovery struct {
	// kubeConfigPath is the path on the node (or the URL) of the kubeconfig file holding the
	// cluster information. Write the file with spec.files, or let the bootstrap controller
	// generate it with kubeConfig.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	KubeConfigPath string `json:"kubeConfigPath,omitempty"`

	// kubeConfig, when set, makes the bootstrap controller write a kubeconfig file at
	// kubeConfigPath: the cluster's server and CA come from the Cluster (unless set here), the
	// user's credentials from user.
	// +optional
	KubeConfig FileDiscoveryKubeConfig `json:"kubeConfig,omitempty,omitzero"`
}

// FileDiscoveryKubeConfig describes the kubeconfig file the bootstrap controller generates for
// file discovery.
type FileDiscoveryKubeConfig struct {
	// cluster says how to reach the cluster. server defaults to https://<the Cluster's
	// controlPlaneEndpoint> and certificateAuthorityData to the cluster CA.
	// +optional
	Cluster KubeConfigCluster `json:"cluster,omitempty,omitzero"`

	// user is how the node authenticates: an auth provider or an exec credential plugin.
	// +required
	User KubeConfigUser `json:"user,omitempty,omitzero"`
}

// KubeConfigCluster says how to reach the cluster, as a kubeconfig cluster entry.
// +kubebuilder:validation:XValidation:rule="has(self.server) || has(self.tlsServerName) || has(self.insecureSkipTLSVerify) || has(self.certificateAuthorityData) || has(self.proxyURL)",message="must set at least one of server, tlsServerName, insecureSkipTLSVerify, certificateAuthorityData or proxyURL, or be left out instead of written as an empty object ({})"
type KubeConfigCluster struct {
	// server is the API server's URL, https://host:port. Defaults to https:// plus the Cluster's
	// controlPlaneEndpoint.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Server string `json:"server,omitempty"`

	// tlsServerName is the name the server's certificate is checked against; defaults to the
	// host of server.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	TLSServerName string `json:"tlsServerName,omitempty"`

	// insecureSkipTLSVerify skips checking the server's certificate: anyone in the path can
	// impersonate the cluster.
	// +optional
	InsecureSkipTLSVerify *bool `json:"insecureSkipTLSVerify,omitempty"`

	// certificateAuthorityData holds the PEM CA certificates the server's certificate is checked
	// against. Defaults to the cluster CA.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=51200
	CertificateAuthorityData []byte `json:"certificateAuthorityData,omitempty"`

	// proxyURL is the http, https or socks5 proxy requests go through. Unset uses the
	// http_proxy and https_proxy environment variables.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProxyURL string `json:"proxyURL,omitempty"`
}

// KubeConfigUser is how the node authenticates: exactly one of authProvider or exec.
// +kubebuilder:validation:XValidation:rule="has(self.authProvider) != has(self.exec)",message="set exactly one of authProvider or exec: they are two ways of getting the node's credentials"
type KubeConfigUser struct {
	// authProvider is a client-go authentication plugin.
	// +optional
	AuthProvider KubeConfigAuthProvider `json:"authProvider,omitempty,omitzero"`

	// exec is a command that prints the credentials (client.authentication.k8s.io).
	// +optional
	Exec KubeConfigAuthExec `json:"exec,omitempty,omitzero"`
}

// KubeConfigAuthProvider is a client-go authentication plugin and its settings.
type KubeConfigAuthProvider struct {
	// name of the plugin.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// config holds the plugin's settings.
	// +optional
	Config map[string]string `json:"config,omitempty"`
}

// KubeConfigAuthExec is a command the client runs to get credentials; it prints an
// ExecCredential on its standard output.
type KubeConfigAuthExec struct {
	// command to run.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Command string `json:"command,omitempty"`

	// args are the command's arguments.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	Args []string `json:"args,omitempty"`

	// env are environment variables added to the command's environment.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Env []KubeConfigAuthExecEnv `json:"env,omitempty"`

	// apiVersion is the client.authentication.k8s.io version of the ExecCredential exchanged.
	// Defaults to client.authentication.k8s.io/v1.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	APIVersion string `json:"apiVersion,omitempty"`

	// provideClusterInfo passes the cluster information (which may hold large CA data) to the
	// command in the KUBERNETES_EXEC_INFO environment variable.
	// +optional
	ProvideClusterInfo *bool `json:"provideClusterInfo,omitempty"`
}

// KubeConfigAuthExecEnv is one environment variable of an exec credential command.
type KubeConfigAuthExecEnv struct {
	// name of the variable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Name string `json:"name,omitempty"`

	// value of the variable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Value string `json:"value,omitempty"`
}
