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

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
)

// ExtensionConfigSpec defines the desired state of ExtensionConfig.
type ExtensionConfigSpec struct {
	// clientConfig says how to reach the Extension server.
	// +required
	ClientConfig ClientConfig `json:"clientConfig,omitempty,omitzero"`

	// namespaceSelector decides whether a hook is called for an object: it is matched against
	// the labels of the object's Namespace. Defaulted to {}, which matches every namespace.
	// +optional
	// +kubebuilder:default={}
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// settings are key/value pairs sent in every request to the extension's handlers; keys the
	// caller sets (a ClusterClass patch's settings) win.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
}

// ClientConfig says how to reach an Extension server: exactly one of url and service.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="has(self.url) != has(self.service)",message="exactly one of url and service must be set",fieldPath=".url"
type ClientConfig struct {
	// url is the Extension server's location, https://host:port/path. Its path, if any, is the
	// prefix of every hook path. The scheme must be https; user info, a query or a fragment
	// are not allowed. Use service for a server running in the management cluster.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="isURL(self)",message="must be an absolute URL (https://host:port/path)"
	// +kubebuilder:validation:XValidation:rule="!isURL(self) || url(self).getScheme() == 'https'",message="the scheme must be https"
	// +kubebuilder:validation:XValidation:rule="!isURL(self) || url(self).getHostname() != ''",message="must name a host"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[^/]*//[^/]*@')",message="user info (user:password@) is not allowed"
	// +kubebuilder:validation:XValidation:rule="!self.contains('?') && !self.contains('#')",message="a query (?...) or a fragment (#...) is not allowed"
	URL string `json:"url,omitempty"`

	// service is the Kubernetes Service of an Extension server running in the management
	// cluster, reached at https://<name>.<namespace>.svc:<port><path>.
	// +optional
	Service *ServiceReference `json:"service,omitempty"`

	// caBundle is the PEM CA bundle the Extension server's certificate is verified with; when
	// empty, the system roots are used. Whoever runs the extension writes it; Capstan changes
	// it never, and discovers the extension again when it changes.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=51200
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference is the Kubernetes Service of an Extension server.
type ServiceReference struct {
	// namespace is the Service's namespace (a DNS-1123 label).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// name is the Service's name (a DNS-1035 label).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// path is a URL path prefixed to every hook path; it must start with /.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/')",message="must start with /"
	Path string `json:"path,omitempty"`

	// port is the Service port of the Extension server. Defaults to 443.
	// +optional
	// +kubebuilder:default=443
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`
}

// ExtensionConfigStatus defines the observed state of ExtensionConfig.
// +kubebuilder:validation:MinProperties=1
type ExtensionConfigStatus struct {
	// conditions are the ExtensionConfig's observations: Discovered.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// handlers are the handlers the last successful discovery reported, sorted by name; each
	// name is <handler>.<ExtensionConfig name>.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=512
	Handlers []ExtensionHandler `json:"handlers,omitempty"`

	// deprecated groups the status fields kept for the v1alpha1 version. Capstan writes none;
	// it is here so that objects written for upstream keep them.
	// +optional
	Deprecated *ExtensionConfigDeprecatedStatus `json:"deprecated,omitempty"`
}

// ExtensionConfigDeprecatedStatus groups the status fields kept for old API versions.
type ExtensionConfigDeprecatedStatus struct {
	// v1beta1 groups the status fields kept for v1alpha1 readers (upstream names it v1beta1).
	// +optional
	V1Beta1 *ExtensionConfigV1Beta1DeprecatedStatus `json:"v1beta1,omitempty"`
}

// ExtensionConfigV1Beta1DeprecatedStatus holds the old-style conditions.
type ExtensionConfigV1Beta1DeprecatedStatus struct {
	// conditions are the old-style (v1beta1) conditions, as v1alpha1 shows them.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`
}

// ExtensionHandler is one handler of a runtime hook that an Extension server serves.
type ExtensionHandler struct {
	// name is the handler's unique name, <handler>.<ExtensionConfig name>.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Name string `json:"name,omitempty"`

	// requestHook is the versioned runtime hook the handler serves.
	// +required
	RequestHook GroupVersionHook `json:"requestHook,omitempty,omitzero"`

	// timeoutSeconds is how long a call to the handler may take. Defaults to 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=30
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`

	// failurePolicy says what a failed call means: Fail (the default) fails the caller, Ignore
	// goes on as if the handler had answered Success. A Failure answer is never ignored.
	// +optional
	FailurePolicy FailurePolicy `json:"failurePolicy,omitempty"`
}

// GroupVersionHook is a versioned runtime hook.
type GroupVersionHook struct {
	// apiVersion is the hook's group and version, hooks.runtime.cluster.x-k8s.io/v1alpha1.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	APIVersion string `json:"apiVersion,omitempty"`

	// hook is the hook's name, e.g. BeforeClusterCreate.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Hook string `json:"hook,omitempty"`
}

// FailurePolicy says how a failed call to a handler is handled: Ignore treats transport
// failures (unreachable, TLS, timeout, a non-200 answer, an undecodable body) as Success.
// +kubebuilder:validation:Enum=Ignore;Fail
type FailurePolicy string

const (
	// FailurePolicyIgnore goes on as if the handler had answered Success.
	FailurePolicyIgnore FailurePolicy = "Ignore"
	// FailurePolicyFail fails the caller.
	FailurePolicyFail FailurePolicy = "Fail"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=extensionconfigs,shortName=ext,scope=Cluster,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Discovered",type="string",JSONPath=".status.conditions[?(@.type==\"Discovered\")].status",description="Whether the extension's discovery succeeded"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ExtensionConfig was created"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1123 label (no dots): handler names are <handler>.<ExtensionConfig name>"

// ExtensionConfig registers a Runtime Extension server: the core manager calls its discovery,
// records its handlers in status and calls them for the hooks they serve.
type ExtensionConfig struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ExtensionConfig.
	// +required
	Spec ExtensionConfigSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the ExtensionConfig.
	// +optional
	Status ExtensionConfigStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the conditions (contracts/conditions.Getter).
func (e *ExtensionConfig) GetConditions() []metav1.Condition { return e.Status.Conditions }

// SetConditions sets the conditions (contracts/conditions.Setter).
func (e *ExtensionConfig) SetConditions(c []metav1.Condition) { e.Status.Conditions = c }

// +kubebuilder:object:root=true

// ExtensionConfigList is a list of ExtensionConfigs.
type ExtensionConfigList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ExtensionConfigs.
	Items []ExtensionConfig `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &ExtensionConfig{}, &ExtensionConfigList{})
}

const (
	// ExtensionConfigDiscoveredCondition is True when the extension's last discovery succeeded
	// for the current spec.
	ExtensionConfigDiscoveredCondition = "Discovered"
	// ExtensionConfigDiscoveredReason is the reason of a True Discovered condition.
	ExtensionConfigDiscoveredReason = "Discovered"
	// ExtensionConfigNotDiscoveredReason is the reason of a False Discovered condition.
	ExtensionConfigNotDiscoveredReason = "NotDiscovered"
)

const (
	// PendingHooksAnnotation on a Cluster holds the sorted, comma-separated names of the hooks
	// that must still be called for it (e.g. "AfterClusterUpgrade,AfterControlPlaneUpgrade"), so
	// a hook owed for an event is called once even across a restart (upstream's annotation).
	PendingHooksAnnotation = "runtime.cluster.x-k8s.io/pending-hooks"
	// OkToDeleteAnnotation on a Cluster says BeforeClusterDelete let its deletion go on; until
	// then nothing of a topology Cluster is deleted (upstream's annotation).
	OkToDeleteAnnotation = "runtime.cluster.x-k8s.io/ok-to-delete"
)
