package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ExampleConfigSpec is the desired state of an ExampleConfig.
type ExampleConfigSpec struct {
	// commands run once on first boot, in order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=1024
	Commands []string `json:"commands,omitempty"`
}

// ExampleConfigStatus is the observed state of an ExampleConfig.
type ExampleConfigStatus struct {
	// conditions: Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization holds the contract's one-way milestone.
	// +optional
	Initialization ExampleConfigInitializationStatus `json:"initialization,omitempty,omitzero"`

	// dataSecretName is the Secret holding the bootstrap data (key value); the core
	// copies it to Machine.spec.bootstrap.dataSecretName.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	DataSecretName string `json:"dataSecretName,omitempty"`
}

// ExampleConfigInitializationStatus is the contract's initialization struct.
// +kubebuilder:validation:MinProperties=1
type ExampleConfigInitializationStatus struct {
	// dataSecretCreated is true once the data Secret exists.
	// +optional
	DataSecretCreated *bool `json:"dataSecretCreated,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=exampleconfigs,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"

// ExampleConfig is the bootstrap configuration of one Machine.
type ExampleConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ExampleConfigSpec `json:"spec,omitempty,omitzero"`
	// +optional
	Status ExampleConfigStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the conditions, for the shared condition helpers.
func (c *ExampleConfig) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions replaces the conditions, for the shared condition helpers.
func (c *ExampleConfig) SetConditions(conds []metav1.Condition) { c.Status.Conditions = conds }

// +kubebuilder:object:root=true

// ExampleConfigList is a list of ExampleConfigs.
type ExampleConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExampleConfig `json:"items"`
}

// ExampleConfigTemplateSpec is what MachineSets clone.
type ExampleConfigTemplateSpec struct {
	// +required
	Template ExampleConfigTemplateResource `json:"template"`
}

// ExampleConfigTemplateResource is one clone's metadata and spec.
type ExampleConfigTemplateResource struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +optional
	Spec ExampleConfigSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=exampleconfigtemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"

// ExampleConfigTemplate is the template of ExampleConfigs (mandatory in the contract).
type ExampleConfigTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ExampleConfigTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// ExampleConfigTemplateList is a list of ExampleConfigTemplates.
type ExampleConfigTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExampleConfigTemplate `json:"items"`
}
