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

// Package conversion converts the example infrastructure kinds between v1alpha1 (the spoke)
// and v1alpha2 (the hub, the storage version) for the example manager's conversion webhook
// (capstan.dev/contracts/conversionwebhook). It is apart from the API packages so that
// importing the types never pulls in controller-runtime, as in Capstan's own providers.
//
// The versions differ in one field: ExampleMachine's spec.addressesFromPools (v1alpha1) is
// spec.network.addressesFromPools in v1alpha2, and so in ExampleMachineTemplate's template
// spec. Every other field has the same name and type in both, and is copied one by one; the
// round-trip fuzz test fills every field of either version at random, so a field added to a
// version and forgotten here fails it instead of being dropped on the way through.
package conversion

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	infrav1alpha1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
)

// Kinds are the example's infrastructure kinds served at v1alpha1. Their specs hold no
// contract references, so no API version resolver is needed.
func Kinds() []conversionwebhook.Kind {
	gk := func(kind string) schema.GroupKind { return infrav1.GroupVersion.WithKind(kind).GroupKind() }
	return []conversionwebhook.Kind{
		conversionwebhook.HubSpokeKind(gk("ExampleCluster"), &infrav1.ExampleCluster{}, &infrav1alpha1.ExampleCluster{},
			ConvertExampleClusterToHub, ConvertHubToExampleCluster, nil),
		conversionwebhook.HubSpokeKind(gk("ExampleMachine"), &infrav1.ExampleMachine{}, &infrav1alpha1.ExampleMachine{},
			ConvertExampleMachineToHub, ConvertHubToExampleMachine, nil),
		conversionwebhook.HubSpokeKind(gk("ExampleMachineTemplate"), &infrav1.ExampleMachineTemplate{}, &infrav1alpha1.ExampleMachineTemplate{},
			ConvertExampleMachineTemplateToHub, ConvertHubToExampleMachineTemplate, nil),
	}
}

// ConvertExampleClusterToHub converts a v1alpha1 ExampleCluster to v1alpha2.
func ConvertExampleClusterToHub(_ context.Context, src *infrav1alpha1.ExampleCluster, dst *infrav1.ExampleCluster) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = infrav1.ExampleClusterSpec{ControlPlaneEndpoint: src.Spec.ControlPlaneEndpoint}
	dst.Status = infrav1.ExampleClusterStatus{
		Conditions:     src.Status.Conditions,
		Initialization: infrav1.ExampleClusterInitializationStatus{Provisioned: src.Status.Initialization.Provisioned},
		FailureDomains: src.Status.FailureDomains,
	}
	return nil
}

// ConvertHubToExampleCluster converts a v1alpha2 ExampleCluster to v1alpha1.
func ConvertHubToExampleCluster(_ context.Context, src *infrav1.ExampleCluster, dst *infrav1alpha1.ExampleCluster,
	_ conversion.APIVersionResolver) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = infrav1alpha1.ExampleClusterSpec{ControlPlaneEndpoint: src.Spec.ControlPlaneEndpoint}
	dst.Status = infrav1alpha1.ExampleClusterStatus{
		Conditions:     src.Status.Conditions,
		Initialization: infrav1alpha1.ExampleClusterInitializationStatus{Provisioned: src.Status.Initialization.Provisioned},
		FailureDomains: src.Status.FailureDomains,
	}
	return nil
}

// ConvertExampleMachineToHub converts a v1alpha1 ExampleMachine to v1alpha2.
func ConvertExampleMachineToHub(_ context.Context, src *infrav1alpha1.ExampleMachine, dst *infrav1.ExampleMachine) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = machineSpecToHub(src.Spec)
	dst.Status = infrav1.ExampleMachineStatus{
		Conditions:     src.Status.Conditions,
		Initialization: infrav1.ExampleMachineInitializationStatus{Provisioned: src.Status.Initialization.Provisioned},
		Addresses:      src.Status.Addresses,
		FailureDomain:  src.Status.FailureDomain,
	}
	return nil
}

// ConvertHubToExampleMachine converts a v1alpha2 ExampleMachine to v1alpha1.
func ConvertHubToExampleMachine(_ context.Context, src *infrav1.ExampleMachine, dst *infrav1alpha1.ExampleMachine,
	_ conversion.APIVersionResolver) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = machineSpecFromHub(src.Spec)
	dst.Status = infrav1alpha1.ExampleMachineStatus{
		Conditions:     src.Status.Conditions,
		Initialization: infrav1alpha1.ExampleMachineInitializationStatus{Provisioned: src.Status.Initialization.Provisioned},
		Addresses:      src.Status.Addresses,
		FailureDomain:  src.Status.FailureDomain,
	}
	return nil
}

// ConvertExampleMachineTemplateToHub converts a v1alpha1 ExampleMachineTemplate to v1alpha2.
func ConvertExampleMachineTemplateToHub(_ context.Context, src *infrav1alpha1.ExampleMachineTemplate,
	dst *infrav1.ExampleMachineTemplate) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = infrav1.ExampleMachineTemplateSpec{Template: infrav1.ExampleMachineTemplateResource{
		ObjectMeta: src.Spec.Template.ObjectMeta,
		Spec:       machineSpecToHub(src.Spec.Template.Spec),
	}}
	return nil
}

// ConvertHubToExampleMachineTemplate converts a v1alpha2 ExampleMachineTemplate to v1alpha1.
func ConvertHubToExampleMachineTemplate(_ context.Context, src *infrav1.ExampleMachineTemplate,
	dst *infrav1alpha1.ExampleMachineTemplate, _ conversion.APIVersionResolver) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = infrav1alpha1.ExampleMachineTemplateSpec{Template: infrav1alpha1.ExampleMachineTemplateResource{
		ObjectMeta: src.Spec.Template.ObjectMeta,
		Spec:       machineSpecFromHub(src.Spec.Template.Spec),
	}}
	return nil
}

// machineSpecToHub moves addressesFromPools under network: the one schema change.
func machineSpecToHub(src infrav1alpha1.ExampleMachineSpec) infrav1.ExampleMachineSpec {
	return infrav1.ExampleMachineSpec{
		ProviderID: src.ProviderID,
		Network:    infrav1.ExampleMachineNetwork{AddressesFromPools: src.AddressesFromPools},
	}
}

// machineSpecFromHub moves network.addressesFromPools back to the top of the spec.
func machineSpecFromHub(src infrav1.ExampleMachineSpec) infrav1alpha1.ExampleMachineSpec {
	return infrav1alpha1.ExampleMachineSpec{
		ProviderID:         src.ProviderID,
		AddressesFromPools: src.Network.AddressesFromPools,
	}
}
