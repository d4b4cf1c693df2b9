// Package v1alpha1 is the example infrastructure provider's API, group
// infrastructure.example.capstan.dev, version v1alpha1: ExampleCluster,
// ExampleMachine and ExampleMachineTemplate. It shows the contract's fields and
// nothing else; docs/provider-guide.md walks through it.
//
// The API version is v1alpha1 on purpose: a provider's own version need not match
// the contract version. The CRD label cluster.x-k8s.io/v1beta2=v1alpha1 (the
// kubebuilder:metadata:labels marker on each type) says "contract v1beta2 is
// served by our v1alpha1".
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.example.capstan.dev
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group version of the example infrastructure objects.
	GroupVersion = schema.GroupVersion{Group: "infrastructure.example.capstan.dev", Version: "v1alpha1"}

	// SchemeBuilder adds the types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &ExampleCluster{}, &ExampleClusterList{}, &ExampleMachine{}, &ExampleMachineList{},
			&ExampleMachineTemplate{}, &ExampleMachineTemplateList{})
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})

	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
