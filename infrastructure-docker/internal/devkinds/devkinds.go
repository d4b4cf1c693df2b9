// Package devkinds reads a Dev object (upstream's DevCluster, DevMachine, DevMachinePool on the
// docker backend) as the Docker object its spec.backend.docker describes, and writes back what
// the Docker logic changed, so that one implementation, the Docker kinds' controllers, serves
// both API shapes: upstream's Docker controllers do the same the other way round. It holds pure
// conversions and the names of each set of kinds; the controllers own reading and patching.
package devkinds

import (
	"k8s.io/apimachinery/pkg/api/equality"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// DockerCluster is the DockerCluster dev describes: its metadata, endpoint, docker backend and
// status, copied.
func DockerCluster(dev *infrav1.DevCluster) *infrav1.DockerCluster {
	d := dev.DeepCopy()
	out := &infrav1.DockerCluster{ObjectMeta: d.ObjectMeta, Status: d.Status}
	out.Spec.ControlPlaneEndpoint = d.Spec.ControlPlaneEndpoint
	if d.Spec.Backend.Docker != nil {
		out.Spec.DockerClusterBackendSpec = *d.Spec.Backend.Docker
	}
	return out
}

// ApplyDockerCluster writes into dev what the DockerCluster logic changed on dc.
func ApplyDockerCluster(dev *infrav1.DevCluster, dc *infrav1.DockerCluster) {
	d := dc.DeepCopy()
	dev.ObjectMeta = d.ObjectMeta
	dev.Spec.ControlPlaneEndpoint = d.Spec.ControlPlaneEndpoint
	dev.Spec.Backend.Docker = backend(dev.Spec.Backend.Docker, d.Spec.DockerClusterBackendSpec)
	dev.Status = d.Status
}

// DockerMachine is the DockerMachine dev describes.
func DockerMachine(dev *infrav1.DevMachine) *infrav1.DockerMachine {
	d := dev.DeepCopy()
	out := &infrav1.DockerMachine{ObjectMeta: d.ObjectMeta, Status: d.Status}
	out.Spec.ProviderID = d.Spec.ProviderID
	if d.Spec.Backend.Docker != nil {
		out.Spec.DockerMachineBackendSpec = *d.Spec.Backend.Docker
	}
	return out
}

// ApplyDockerMachine writes into dev what the DockerMachine logic changed on dm.
func ApplyDockerMachine(dev *infrav1.DevMachine, dm *infrav1.DockerMachine) {
	d := dm.DeepCopy()
	dev.ObjectMeta = d.ObjectMeta
	dev.Spec.ProviderID = d.Spec.ProviderID
	dev.Spec.Backend.Docker = backend(dev.Spec.Backend.Docker, d.Spec.DockerMachineBackendSpec)
	dev.Status = d.Status
}

// DockerMachinePool is the DockerMachinePool dev describes.
func DockerMachinePool(dev *infrav1.DevMachinePool) *infrav1.DockerMachinePool {
	d := dev.DeepCopy()
	out := &infrav1.DockerMachinePool{ObjectMeta: d.ObjectMeta, Status: d.Status}
	out.Spec.ProviderID, out.Spec.ProviderIDList = d.Spec.ProviderID, d.Spec.ProviderIDList
	if d.Spec.Backend.Docker != nil {
		out.Spec.Template = *d.Spec.Backend.Docker
	}
	return out
}

// ApplyDockerMachinePool writes into dev what the DockerMachinePool logic changed on pool.
func ApplyDockerMachinePool(dev *infrav1.DevMachinePool, pool *infrav1.DockerMachinePool) {
	d := pool.DeepCopy()
	dev.ObjectMeta = d.ObjectMeta
	dev.Spec.ProviderID, dev.Spec.ProviderIDList = d.Spec.ProviderID, d.Spec.ProviderIDList
	dev.Spec.Backend.Docker = backend(dev.Spec.Backend.Docker, d.Spec.Template)
	dev.Status = d.Status
}

// backend is the docker backend to write back: unset stays unset while the Docker logic left
// the settings empty (admission defaults it; a Dev object is never rewritten for nothing).
func backend[T any](was *T, now T) *T {
	var zero T
	if was == nil && equality.Semantic.DeepEqual(now, zero) {
		return nil
	}
	return &now
}
