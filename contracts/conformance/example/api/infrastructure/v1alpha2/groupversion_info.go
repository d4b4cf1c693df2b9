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

// Package v1alpha2 is the example infrastructure provider's API, group
// infrastructure.example.capstan.dev, version v1alpha2: ExampleCluster,
// ExampleMachine and ExampleMachineTemplate, the storage version from the example
// provider's v0.2.0 on. It exists to show a provider's second API version: the
// one schema change from v1alpha1 is that ExampleMachine's spec.addressesFromPools
// moved to spec.network.addressesFromPools (and so in the template's spec), and
// the example manager's conversion webhook (package conversion) keeps v1alpha1
// served.
//
// Both versions serve contract v1beta2, so the CRDs holding both carry the label
// cluster.x-k8s.io/v1beta2=v1alpha1_v1alpha2 (the kubebuilder:metadata:labels
// marker on each type): the core picks the newest, v1alpha2, for the
// references it writes.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.example.capstan.dev
package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group version of the example infrastructure objects.
	GroupVersion = schema.GroupVersion{Group: "infrastructure.example.capstan.dev", Version: "v1alpha2"}

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
