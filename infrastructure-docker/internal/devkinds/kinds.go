package devkinds

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// Kinds are the kinds one controller of the provider serves: the Docker kinds, or the Dev kinds.
// A controller reads and writes objects of its own kinds and finds its peers (the cluster of a
// machine, the machines of a cluster) among the same kinds.
type Kinds struct {
	Cluster, Machine, MachinePool string
	dev                           bool
}

var (
	// Docker are the Docker kinds.
	Docker = Kinds{Cluster: "DockerCluster", Machine: "DockerMachine", MachinePool: "DockerMachinePool"}
	// Dev are the Dev kinds.
	Dev = Kinds{Cluster: "DevCluster", Machine: "DevMachine", MachinePool: "DevMachinePool", dev: true}
)

// For returns Dev when dev is set, else Docker.
func For(dev bool) Kinds {
	if dev {
		return Dev
	}
	return Docker
}

// IsDev reports whether these are the Dev kinds.
func (k Kinds) IsDev() bool { return k.dev }

// NewCluster returns an empty object of the cluster kind.
func (k Kinds) NewCluster() client.Object {
	if k.dev {
		return &infrav1.DevCluster{}
	}
	return &infrav1.DockerCluster{}
}

// NewClusterList returns an empty list of the cluster kind.
func (k Kinds) NewClusterList() client.ObjectList {
	if k.dev {
		return &infrav1.DevClusterList{}
	}
	return &infrav1.DockerClusterList{}
}

// NewMachine returns an empty object of the machine kind.
func (k Kinds) NewMachine() client.Object {
	if k.dev {
		return &infrav1.DevMachine{}
	}
	return &infrav1.DockerMachine{}
}

// NewMachineList returns an empty list of the machine kind.
func (k Kinds) NewMachineList() client.ObjectList {
	if k.dev {
		return &infrav1.DevMachineList{}
	}
	return &infrav1.DockerMachineList{}
}

// NewMachinePool returns an empty object of the machine pool kind.
func (k Kinds) NewMachinePool() client.Object {
	if k.dev {
		return &infrav1.DevMachinePool{}
	}
	return &infrav1.DockerMachinePool{}
}

// NewMachinePoolList returns an empty list of the machine pool kind.
func (k Kinds) NewMachinePoolList() client.ObjectList {
	if k.dev {
		return &infrav1.DevMachinePoolList{}
	}
	return &infrav1.DockerMachinePoolList{}
}
