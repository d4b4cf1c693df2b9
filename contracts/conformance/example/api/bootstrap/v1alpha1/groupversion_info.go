// Package v1alpha1 is the example bootstrap provider's API, group
// bootstrap.example.capstan.dev, version v1alpha1: ExampleConfig, whose
// controller renders a few shell commands into a cloud-config data Secret, and
// ExampleConfigTemplate. It exists so that the conformance kit's BootstrapConfig
// checks run against a real controller.
//
// +kubebuilder:object:generate=true
// +groupName=bootstrap.example.capstan.dev
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group version of the example bootstrap objects.
	GroupVersion = schema.GroupVersion{Group: "bootstrap.example.capstan.dev", Version: "v1alpha1"}

	// SchemeBuilder adds the types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &ExampleConfig{}, &ExampleConfigList{}, &ExampleConfigTemplate{}, &ExampleConfigTemplateList{})
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})

	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
