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

// Package converters ties the older spokes of the kinds the core serves (groups
// cluster.x-k8s.io and addons.cluster.x-k8s.io at v1beta1, ipam.cluster.x-k8s.io at v1alpha1
// and v1beta1, runtime.cluster.x-k8s.io at v1alpha1) to their v1beta2 hubs for the core manager's
// conversion webhook (capstan.dev/contracts/conversionwebhook). It is apart from the
// API packages so that importing the types never pulls in controller-runtime.
package converters

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1beta1 "capstan.dev/contracts/api/addons/v1beta1"
	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1alpha1 "capstan.dev/contracts/api/ipam/v1alpha1"
	ipamv1beta1 "capstan.dev/contracts/api/ipam/v1beta1"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	runtimev1alpha1 "capstan.dev/contracts/api/runtime/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
)

// Kinds are the kinds served at older versions; resolver names the API version of references
// that v1beta1 clients did not write (conversion.CRDContractResolver in the manager).
func Kinds(resolver conversion.APIVersionResolver) []conversionwebhook.Kind {
	return []conversionwebhook.Kind{
		kind("Cluster", &clusterv1.Cluster{}, &clusterv1beta1.Cluster{}, clusterv1beta1.ConvertClusterToHub, clusterv1beta1.ConvertHubToCluster, resolver),
		kind("Machine", &clusterv1.Machine{}, &clusterv1beta1.Machine{}, clusterv1beta1.ConvertMachineToHub, clusterv1beta1.ConvertHubToMachine, resolver),
		kind("MachineSet", &clusterv1.MachineSet{}, &clusterv1beta1.MachineSet{}, clusterv1beta1.ConvertMachineSetToHub, clusterv1beta1.ConvertHubToMachineSet, resolver),
		kind("MachineDeployment", &clusterv1.MachineDeployment{}, &clusterv1beta1.MachineDeployment{},
			clusterv1beta1.ConvertMachineDeploymentToHub, clusterv1beta1.ConvertHubToMachineDeployment, resolver),
		kind("MachineHealthCheck", &clusterv1.MachineHealthCheck{}, &clusterv1beta1.MachineHealthCheck{},
			clusterv1beta1.ConvertMachineHealthCheckToHub, clusterv1beta1.ConvertHubToMachineHealthCheck, resolver),
		kind("MachinePool", &clusterv1.MachinePool{}, &clusterv1beta1.MachinePool{}, clusterv1beta1.ConvertMachinePoolToHub, clusterv1beta1.ConvertHubToMachinePool, resolver),
		kind("ClusterClass", &clusterv1.ClusterClass{}, &clusterv1beta1.ClusterClass{}, clusterv1beta1.ConvertClusterClassToHub, clusterv1beta1.ConvertHubToClusterClass, resolver),
		kind("MachineDrainRule", &clusterv1.MachineDrainRule{}, &clusterv1beta1.MachineDrainRule{},
			clusterv1beta1.ConvertMachineDrainRuleToHub, clusterv1beta1.ConvertHubToMachineDrainRule, resolver),
		addonsKind("ClusterResourceSet", &addonsv1.ClusterResourceSet{}, &addonsv1beta1.ClusterResourceSet{},
			addonsv1beta1.ConvertClusterResourceSetToHub, addonsv1beta1.ConvertHubToClusterResourceSet, resolver),
		addonsKind("ClusterResourceSetBinding", &addonsv1.ClusterResourceSetBinding{}, &addonsv1beta1.ClusterResourceSetBinding{},
			addonsv1beta1.ConvertClusterResourceSetBindingToHub, addonsv1beta1.ConvertHubToClusterResourceSetBinding, resolver),
		conversionwebhook.HubSpokesKind(ipamv1.GroupVersion.WithKind("IPAddressClaim").GroupKind(), &ipamv1.IPAddressClaim{},
			conversionwebhook.Spoke(&ipamv1beta1.IPAddressClaim{}, ipamv1beta1.ConvertIPAddressClaimToHub, ipamv1beta1.ConvertHubToIPAddressClaim, resolver),
			conversionwebhook.Spoke(&ipamv1alpha1.IPAddressClaim{}, ipamv1alpha1.ConvertIPAddressClaimToHub, ipamv1alpha1.ConvertHubToIPAddressClaim, resolver)),
		conversionwebhook.HubSpokesKind(ipamv1.GroupVersion.WithKind("IPAddress").GroupKind(), &ipamv1.IPAddress{},
			conversionwebhook.Spoke(&ipamv1beta1.IPAddress{}, ipamv1beta1.ConvertIPAddressToHub, ipamv1beta1.ConvertHubToIPAddress, resolver),
			conversionwebhook.Spoke(&ipamv1alpha1.IPAddress{}, ipamv1alpha1.ConvertIPAddressToHub, ipamv1alpha1.ConvertHubToIPAddress, resolver)),
		// ExtensionConfig's old version is v1alpha1 (runtime.cluster.x-k8s.io), as upstream's.
		conversionwebhook.HubSpokeKind(runtimev1.GroupVersion.WithKind("ExtensionConfig").GroupKind(), &runtimev1.ExtensionConfig{},
			&runtimev1alpha1.ExtensionConfig{}, runtimev1alpha1.ConvertExtensionConfigToHub, runtimev1alpha1.ConvertHubToExtensionConfig, resolver),
	}
}

func kind[H, S client.Object](kindOf string, hub H, spoke S, up func(context.Context, S, H) error,
	down func(context.Context, H, S, conversion.APIVersionResolver) error, resolver conversion.APIVersionResolver) conversionwebhook.Kind {
	return conversionwebhook.HubSpokeKind(clusterv1.GroupVersion.WithKind(kindOf).GroupKind(), hub, spoke, up, down, resolver)
}

func addonsKind[H, S client.Object](kindOf string, hub H, spoke S, up func(context.Context, S, H) error,
	down func(context.Context, H, S, conversion.APIVersionResolver) error, resolver conversion.APIVersionResolver) conversionwebhook.Kind {
	return conversionwebhook.HubSpokeKind(addonsv1.GroupVersion.WithKind(kindOf).GroupKind(), hub, spoke, up, down, resolver)
}
