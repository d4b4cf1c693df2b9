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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
)

// ExtensionConfigSpec defines the desired state of ExtensionConfig.
type ExtensionConfigSpec struct {
	// clientConfig says how to reach the Extension server.
	// +required
	ClientConfig ClientConfig `json:"clientConfig"`

	// namespaceSelector is matched against the labels of the Namespace of the object a hook is
	// called for. Defaulted to {}, which matches every namespace.
	// +optional
	// +kubebuilder:default={}
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// settings are key/value pairs sent in every request to the extension's handlers.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
}

// ClientConfig says how to reach an Extension server: exactly one of url and service.
// +kubebuilder:validation:XValidation:rule="has(self.url) != has(self.service)",message="exactly one of url and service must be set",fieldPath=".url"
type ClientConfig struct {
	// url is the Extension server's location, https://host:port/path.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="isURL(self)",message="must be an absolute URL (https://host:port/path)"
	// +kubebuilder:validation:XValidation:rule="!isURL(self) || url(self).getScheme() == 'https'",message="the scheme must be https"
	// +kubebuilder:validation:XValidation:rule="!isURL(self) || url(self).getHostname() != ''",message="must name a host"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[^/]*//[^/]*@')",message="user info (user:password@) is not allowed"
	// +kubebuilder:validation:XValidation:rule="!self.contains('?') && !self.contains('#')",message="a query (?...) or a fragment (#...) is not allowed"
	URL *string `json:"url,omitempty"`

	// service is the Kubernetes Service of an Extension server in the management cluster.
	// +optional
	Service *ServiceReference `json:"service,omitempty"`

	// caBundle is the PEM CA bundle the Extension server's certificate is verified with.
	// +optional
	// +kubebuilder:validation:MaxLength=51200
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference is the Kubernetes Service of an Extension server.
type ServiceReference struct {
	// namespace is the Service's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`

	// name is the Service's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// path is a URL path prefixed to every hook path; it must start with /.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/')",message="must start with /"
	Path *string `json:"path,omitempty"`

	// port is the Service port of the Extension server. Defaults to 443.
	// +optional
	// +kubebuilder:default=443
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`
}

// ExtensionConfigStatus defines the observed state of ExtensionConfig.
type ExtensionConfigStatus struct {
	// handlers are the handlers the last successful discovery reported.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=512
	Handlers []ExtensionHandler `json:"handlers,omitempty"`

	// conditions are the old-style conditions.
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`

	// v1beta2 holds the metav1 conditions (Discovered).
	// +optional
	V1Beta2 *ExtensionConfigV1Beta2Status `json:"v1beta2,omitempty"`
}

// ExtensionConfigV1Beta2Status holds the metav1 conditions.
type ExtensionConfigV1Beta2Status struct {
	// conditions are the ExtensionConfig's observations: Discovered.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ExtensionHandler is one handler of a runtime hook that an Extension server serves.
type ExtensionHandler struct {
	// name is the handler's unique name, <handler>.<ExtensionConfig name>.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Name string `json:"name"`

	// requestHook is the versioned runtime hook the handler serves.
	// +required
	RequestHook GroupVersionHook `json:"requestHook"`

	// timeoutSeconds is how long a call to the handler may take. Defaults to 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=30
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`

	// failurePolicy says what a failed call means. Defaults to Fail.
	// +optional
	FailurePolicy *FailurePolicy `json:"failurePolicy,omitempty"`
}

// GroupVersionHook is a versioned runtime hook.
type GroupVersionHook struct {
	// apiVersion is the hook's group and version.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	APIVersion string `json:"apiVersion"`

	// hook is the hook's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Hook string `json:"hook"`
}

// FailurePolicy says how a failed call to a handler is handled.
// +kubebuilder:validation:Enum=Ignore;Fail
type FailurePolicy string

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=extensionconfigs,shortName=ext,scope=Cluster,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="runtime.cluster.x-k8s.io/v1alpha1 ExtensionConfig is deprecated; use runtime.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ExtensionConfig was created"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1123 label (no dots): handler names are <handler>.<ExtensionConfig name>"

// ExtensionConfig registers a Runtime Extension server (v1alpha1, deprecated).
type ExtensionConfig struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ExtensionConfig.
	// +optional
	Spec ExtensionConfigSpec `json:"spec,omitempty"`

	// status is the observed state of the ExtensionConfig.
	// +optional
	Status ExtensionConfigStatus `json:"status,omitempty"`
}

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
