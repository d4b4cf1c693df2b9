package node

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// Provisioner creates and bootstraps node containers for a controller.
type Provisioner struct {
	// Client reads DockerClusters (the load balancer's address on the node network).
	Client client.Reader
	// APIReader reads the bootstrap data Secrets live: the manager caches no Secret.
	APIReader client.Reader
	// Docker is the management plane's Docker Engine.
	Docker *docker.Runtime
}

// ContainerSpec is a node container to create.
type ContainerSpec struct {
	// Name is the container's name, hostname and workload Node name.
	Name  string
	Image string
	Owner docker.Owner
	Role  docker.Role
	// Mounts are the object's extraMounts.
	Mounts []infrav1.Mount
	// Labels are the controller's own labels, which find the container again after a restart.
	Labels map[string]string
}

// Create ensures the provider's networks and creates and starts a node container, with the
// endpoint sysctl (see endpointRoute). Its /etc/hosts learns the cluster's other containers from
// SyncClusterAddresses, not at creation: lines Docker writes at creation could never be taken
// back when those containers go. It wraps docker.ErrImageNotFound when the image is not on the
// engine (see ImageNotFoundMessage).
func (p *Provisioner) Create(ctx context.Context, spec ContainerSpec) (*docker.Container, error) {
	mounts := make([]docker.Mount, 0, len(spec.Mounts))
	for _, m := range spec.Mounts {
		mounts = append(mounts, docker.Mount{Source: m.HostPath, Target: m.ContainerPath, ReadOnly: ptr.Deref(m.ReadOnly, false)})
	}
	if err := p.Docker.EnsureNetworks(ctx); err != nil {
		return nil, fmt.Errorf("ensuring the provider's Docker networks: %w", err)
	}
	return p.Docker.Create(ctx, docker.ContainerSpec{
		Name: spec.Name, Image: spec.Image, Owner: spec.Owner, Role: spec.Role, Node: true, Mounts: mounts,
		Labels:  spec.Labels,
		Sysctls: map[string]string{routeEndpointSysctl: "1"},
	})
}

// Image is the node image: customImage when set, else capstan/node:<version>; "" when neither
// is set.
func Image(customImage, version string) string {
	switch {
	case customImage != "":
		return customImage
	case version != "":
		return "capstan/node:" + version
	}
	return ""
}

// ImageNotFoundMessage tells users how to get a missing node image onto the engine. customField
// is the path of the object's customImage field when the image came from it, "" when it is the
// default image of version.
func ImageNotFoundMessage(image, version, customField string) string {
	if customField != "" {
		return fmt.Sprintf("Image %s (%s) is not on the Docker Engine and is never pulled: build or tag it locally, or fix %s", image, customField, customField)
	}
	return fmt.Sprintf("Image %s is not on the Docker Engine and is never pulled: build it with `make node-image KUBERNETES_VERSION=%s`", image, version)
}

// ProviderIDPrefix is upstream CAPD's: a node's provider ID is "docker:////<container name>".
const ProviderIDPrefix = "docker:////"

// ProviderID is the provider ID of the node container named name.
func ProviderID(name string) string { return ProviderIDPrefix + name }

// ContainerName is the container name in a provider ID, or "" when id is not one of ours.
func ContainerName(id string) string {
	name, ok := strings.CutPrefix(id, ProviderIDPrefix)
	if !ok {
		return ""
	}
	return name
}

// Addresses are the contract's addresses of a node container: its name (hostname) and its IPv4
// address on the provider's network.
func Addresses(c *docker.Container) clusterv1.MachineAddresses {
	addresses := clusterv1.MachineAddresses{{Type: clusterv1.MachineHostName, Address: c.Name}}
	if c.IPv4 != "" {
		addresses = append(addresses, clusterv1.MachineAddress{Type: clusterv1.MachineInternalIP, Address: c.IPv4})
	}
	return addresses
}
