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

// Package converters ties the kubeadm provider's v1beta1 spokes (KubeadmConfig,
// KubeadmConfigTemplate, KubeadmControlPlane, KubeadmControlPlaneTemplate) to their v1beta2 hubs
// for the bootstrap-kubeadm manager's conversion webhook (capstan.dev/contracts/conversionwebhook).
// It is apart from the API packages so that importing the types never pulls in controller-runtime.
package converters

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1beta1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
)

// Kinds are the provider's kinds served at v1beta1; resolver names the API version of
// references that v1beta1 clients did not write (conversion.CRDContractResolver in the manager).
func Kinds(resolver conversion.APIVersionResolver) []conversionwebhook.Kind {
	bootstrap := func(kind string) schema.GroupKind { return bootstrapv1.GroupVersion.WithKind(kind).GroupKind() }
	controlPlane := func(kind string) schema.GroupKind { return controlplanev1.GroupVersion.WithKind(kind).GroupKind() }
	return []conversionwebhook.Kind{
		conversionwebhook.HubSpokeKind(bootstrap("KubeadmConfig"), &bootstrapv1.KubeadmConfig{}, &bootstrapv1beta1.KubeadmConfig{},
			bootstrapv1beta1.ConvertKubeadmConfigToHub, bootstrapv1beta1.ConvertHubToKubeadmConfig, resolver),
		conversionwebhook.HubSpokeKind(bootstrap("KubeadmConfigTemplate"), &bootstrapv1.KubeadmConfigTemplate{}, &bootstrapv1beta1.KubeadmConfigTemplate{},
			bootstrapv1beta1.ConvertKubeadmConfigTemplateToHub, bootstrapv1beta1.ConvertHubToKubeadmConfigTemplate, resolver),
		conversionwebhook.HubSpokeKind(controlPlane("KubeadmControlPlane"), &controlplanev1.KubeadmControlPlane{}, &controlplanev1beta1.KubeadmControlPlane{},
			controlplanev1beta1.ConvertKubeadmControlPlaneToHub, controlplanev1beta1.ConvertHubToKubeadmControlPlane, resolver),
		conversionwebhook.HubSpokeKind(controlPlane("KubeadmControlPlaneTemplate"), &controlplanev1.KubeadmControlPlaneTemplate{},
			&controlplanev1beta1.KubeadmControlPlaneTemplate{},
			controlplanev1beta1.ConvertKubeadmControlPlaneTemplateToHub, controlplanev1beta1.ConvertHubToKubeadmControlPlaneTemplate, resolver),
	}
}
