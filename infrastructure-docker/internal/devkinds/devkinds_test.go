package devkinds

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/randfill"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// Reading a Dev object as its Docker object and writing that back, unchanged, gives back the
// Dev object exactly: a reconcile that changes nothing writes nothing.
func TestDevObjects_ReadAsDockerAndWrittenBackUnchangedAreTheSame(t *testing.T) {
	for seed := range int64(200) {
		f := randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3)

		cluster := &infrav1.DevCluster{}
		f.Fill(cluster)
		gotCluster := cluster.DeepCopy()
		ApplyDockerCluster(gotCluster, DockerCluster(cluster))
		requireSame(t, seed, cluster, gotCluster)

		machine := &infrav1.DevMachine{}
		f.Fill(machine)
		gotMachine := machine.DeepCopy()
		ApplyDockerMachine(gotMachine, DockerMachine(machine))
		requireSame(t, seed, machine, gotMachine)

		pool := &infrav1.DevMachinePool{}
		f.Fill(pool)
		gotPool := pool.DeepCopy()
		ApplyDockerMachinePool(gotPool, DockerMachinePool(pool))
		requireSame(t, seed, pool, gotPool)
	}
}

func requireSame(t *testing.T, seed int64, want, got any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("seed %d: (-want +got):\n%s", seed, diff)
	}
}

// What the Docker logic changes (finalizers, annotations, endpoint, providerID, status) lands
// on the Dev object, under its own fields.
func TestDevObjects_DockerChangesLandOnTheDevObject(t *testing.T) {
	dev := &infrav1.DevCluster{}
	dc := DockerCluster(dev)
	dc.Finalizers = []string{infrav1.ClusterFinalizer}
	dc.Annotations = map[string]string{infrav1.LoadBalancerAddressAnnotation: "172.18.0.2:6443"}
	dc.Spec.ControlPlaneEndpoint.Host, dc.Spec.ControlPlaneEndpoint.Port = "127.0.0.1", 40000
	provisioned := true
	dc.Status.Initialization.Provisioned = &provisioned
	ApplyDockerCluster(dev, dc)
	if dev.Finalizers[0] != infrav1.ClusterFinalizer || dev.Annotations[infrav1.LoadBalancerAddressAnnotation] == "" ||
		dev.Spec.ControlPlaneEndpoint.Port != 40000 || !*dev.Status.Initialization.Provisioned || dev.Spec.Backend.Docker != nil {
		t.Fatalf("not written back as expected: %+v", dev)
	}

	machine := &infrav1.DevMachine{Spec: infrav1.DevMachineSpec{Backend: infrav1.DevMachineBackendSpec{Docker: &infrav1.DockerMachineBackendSpec{CustomImage: "x"}}}}
	dm := DockerMachine(machine)
	if dm.Spec.CustomImage != "x" {
		t.Fatalf("backend.docker not read: %+v", dm.Spec)
	}
	dm.Spec.ProviderID = "docker:////m"
	ApplyDockerMachine(machine, dm)
	if machine.Spec.ProviderID != "docker:////m" || machine.Spec.Backend.Docker.CustomImage != "x" {
		t.Fatalf("not written back as expected: %+v", machine.Spec)
	}
}
