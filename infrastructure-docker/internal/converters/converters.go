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
func Kinds() []conversionwebhook.Kind {
	gk := func(kind string) schema.GroupKind { return infrav1.GroupVersion.WithKind(kind).GroupKind() }
	return []conversionwebhook.Kind{
		conversionwebhook.HubSpoke(gk("DockerCluster"), &infrav1.DockerCluster{}, &infrav1beta1.DockerCluster{},
			infrav1beta1.ConvertDockerClusterToHub, infrav1beta1.ConvertHubToDockerCluster),
		conversionwebhook.HubSpoke(gk("DockerClusterTemplate"), &infrav1.DockerClusterTemplate{}, &infrav1beta1.DockerClusterTemplate{},
			infrav1beta1.ConvertDockerClusterTemplateToHub, infrav1beta1.ConvertHubToDockerClusterTemplate),
		conversionwebhook.HubSpoke(gk("DockerMachine"), &infrav1.DockerMachine{}, &infrav1beta1.DockerMachine{},
			infrav1beta1.ConvertDockerMachineToHub, infrav1beta1.ConvertHubToDockerMachine),
		conversionwebhook.HubSpoke(gk("DockerMachineTemplate"), &infrav1.DockerMachineTemplate{}, &infrav1beta1.DockerMachineTemplate{},
			infrav1beta1.ConvertDockerMachineTemplateToHub, infrav1beta1.ConvertHubToDockerMachineTemplate),
		conversionwebhook.HubSpoke(gk("DockerMachinePool"), &infrav1.DockerMachinePool{}, &infrav1beta1.DockerMachinePool{},
			infrav1beta1.ConvertDockerMachinePoolToHub, infrav1beta1.ConvertHubToDockerMachinePool),
		conversionwebhook.HubSpoke(gk("DockerMachinePoolTemplate"), &infrav1.DockerMachinePoolTemplate{}, &infrav1beta1.DockerMachinePoolTemplate{},
			infrav1beta1.ConvertDockerMachinePoolTemplateToHub, infrav1beta1.ConvertHubToDockerMachinePoolTemplate),
		conversionwebhook.HubSpoke(gk("DevCluster"), &infrav1.DevCluster{}, &infrav1beta1.DevCluster{},
			infrav1beta1.ConvertDevClusterToHub, infrav1beta1.ConvertHubToDevCluster),
		conversionwebhook.HubSpoke(gk("DevClusterTemplate"), &infrav1.DevClusterTemplate{}, &infrav1beta1.DevClusterTemplate{},
			infrav1beta1.ConvertDevClusterTemplateToHub, infrav1beta1.ConvertHubToDevClusterTemplate),
		conversionwebhook.HubSpoke(gk("DevMachine"), &infrav1.DevMachine{}, &infrav1beta1.DevMachine{},
			infrav1beta1.ConvertDevMachineToHub, infrav1beta1.ConvertHubToDevMachine),
		conversionwebhook.HubSpoke(gk("DevMachineTemplate"), &infrav1.DevMachineTemplate{}, &infrav1beta1.DevMachineTemplate{},
			infrav1beta1.ConvertDevMachineTemplateToHub, infrav1beta1.ConvertHubToDevMachineTemplate),
	}
}
