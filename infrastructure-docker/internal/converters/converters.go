// Package converters ties the Docker provider's v1beta1 spokes to their v1beta2 hubs for the
// provider manager's conversion webhook (capstan.dev/contracts/conversionwebhook). It is apart
// from the API packages so that importing the types never pulls in controller-runtime.
package converters

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"capstan.dev/contracts/conversionwebhook"
	infrav1beta1 "capstan.dev/infrastructure-docker/api/v1beta1"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// Kinds are the provider's kinds served at v1beta1: the Docker kinds, and the Dev kinds that
// upstream serves at v1beta1 (DevMachinePool and its template are v1beta2 only, as upstream).
// They hold no contract references, so no API version resolver is needed.
func Kinds() []conversionwebhook.Kind {
	gk := func(kind string) schema.GroupKind { return infrav1.GroupVersion.WithKind(kind).GroupKind() }
	return []conversionwebhook.Kind{
		conversionwebhook.HubSpokeKind(gk("DockerCluster"), &infrav1.DockerCluster{}, &infrav1beta1.DockerCluster{},
			infrav1beta1.ConvertDockerClusterToHub, infrav1beta1.ConvertHubToDockerCluster, nil),
		conversionwebhook.HubSpokeKind(gk("DockerClusterTemplate"), &infrav1.DockerClusterTemplate{}, &infrav1beta1.DockerClusterTemplate{},
			infrav1beta1.ConvertDockerClusterTemplateToHub, infrav1beta1.ConvertHubToDockerClusterTemplate, nil),
		conversionwebhook.HubSpokeKind(gk("DockerMachine"), &infrav1.DockerMachine{}, &infrav1beta1.DockerMachine{},
			infrav1beta1.ConvertDockerMachineToHub, infrav1beta1.ConvertHubToDockerMachine, nil),
		conversionwebhook.HubSpokeKind(gk("DockerMachineTemplate"), &infrav1.DockerMachineTemplate{}, &infrav1beta1.DockerMachineTemplate{},
			infrav1beta1.ConvertDockerMachineTemplateToHub, infrav1beta1.ConvertHubToDockerMachineTemplate, nil),
		conversionwebhook.HubSpokeKind(gk("DockerMachinePool"), &infrav1.DockerMachinePool{}, &infrav1beta1.DockerMachinePool{},
			infrav1beta1.ConvertDockerMachinePoolToHub, infrav1beta1.ConvertHubToDockerMachinePool, nil),
		conversionwebhook.HubSpokeKind(gk("DockerMachinePoolTemplate"), &infrav1.DockerMachinePoolTemplate{}, &infrav1beta1.DockerMachinePoolTemplate{},
			infrav1beta1.ConvertDockerMachinePoolTemplateToHub, infrav1beta1.ConvertHubToDockerMachinePoolTemplate, nil),
		conversionwebhook.HubSpokeKind(gk("DevCluster"), &infrav1.DevCluster{}, &infrav1beta1.DevCluster{},
			infrav1beta1.ConvertDevClusterToHub, infrav1beta1.ConvertHubToDevCluster, nil),
		conversionwebhook.HubSpokeKind(gk("DevClusterTemplate"), &infrav1.DevClusterTemplate{}, &infrav1beta1.DevClusterTemplate{},
			infrav1beta1.ConvertDevClusterTemplateToHub, infrav1beta1.ConvertHubToDevClusterTemplate, nil),
		conversionwebhook.HubSpokeKind(gk("DevMachine"), &infrav1.DevMachine{}, &infrav1beta1.DevMachine{},
			infrav1beta1.ConvertDevMachineToHub, infrav1beta1.ConvertHubToDevMachine, nil),
		conversionwebhook.HubSpokeKind(gk("DevMachineTemplate"), &infrav1.DevMachineTemplate{}, &infrav1beta1.DevMachineTemplate{},
			infrav1beta1.ConvertDevMachineTemplateToHub, infrav1beta1.ConvertHubToDevMachineTemplate, nil),
	}
}
