package devkinds_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conformance"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// withoutEngine points the controllers' Docker client at a socket nothing listens on: the kit's
// owned scenario has a provisioned Cluster infrastructure, and no test here may start containers
// (the engine suites, dockermachine and dockercluster, run the whole kit on the Docker kinds).
func withoutEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))
}

// engineChecks are the kit's checks that need containers (provisioning, and everything judged
// on a provisioned object, a resumed one or a deleted one).
func engineChecks(extra conformance.Check) map[conformance.Check]string {
	const why = "needs a Docker Engine (containers); the engine suites run it on the same implementation"
	skip := map[conformance.Check]string{}
	for _, c := range []conformance.Check{conformance.CheckProvisioned, conformance.CheckPausedByAnnotation,
		conformance.CheckPausedByCluster, conformance.CheckPausedCondition, conformance.CheckDelete, extra} {
		skip[c] = why
	}
	return skip
}

func watchedBy(plane string) func(metav1.Object) {
	return func(o metav1.Object) {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterv1.WatchLabel] = plane
		o.SetLabels(labels)
	}
}

func unstructuredOf(t *testing.T, obj runtime.Object, kind string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(infrav1.GroupVersion.WithKind(kind))
	return u
}

// engineFreeInput starts the controllers without an engine and returns the kit's input for kind,
// whose objects object makes, skipping the engine checks and extra.
func engineFreeInput(t *testing.T, kind string, object func(namespace, name string) runtime.Object, extra conformance.Check) conformance.Input {
	t.Helper()
	withoutEngine(t)
	plane := dockertest.Plane(t.Name())
	startControllers(t, plane)
	watched := watchedBy(plane)
	return conformance.Input{
		Client: env.Client,
		GVK:    infrav1.GroupVersion.WithKind(kind),
		NewObject: func(namespace, name string) *unstructured.Unstructured {
			return unstructuredOf(t, object(namespace, name), kind)
		},
		Timeout:          30 * time.Second,
		ProviderIDScheme: "docker",
		Prepare: func(f *conformance.Fixture) {
			watched(f.Cluster)
			watched(f.Object)
			if f.Machine != nil {
				watched(f.Machine)
				f.Machine.Spec.Version = "v1.37.2"
			}
		},
		Skip: engineChecks(extra),
	}
}

// TestDevMachine_PassesTheEngineFreeChecksOfTheInfraMachineConformanceKit runs the provider
// conformance kit on DevMachine, served by the DockerMachine controller (Dev: true): its CRD and
// template CRD, its schema against the InfraMachine contract, and that it is not provisioned
// without an owner Machine.
func TestDevMachine_PassesTheEngineFreeChecksOfTheInfraMachineConformanceKit(t *testing.T) {
	conformance.InfrastructureMachine(t, engineFreeInput(t, "DevMachine", func(namespace, name string) runtime.Object {
		return &infrav1.DevMachine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: infrav1.DevMachineSpec{Backend: infrav1.DevMachineBackendSpec{Docker: &infrav1.DockerMachineBackendSpec{}}}}
	}, conformance.CheckProviderID))
}

// TestDevCluster_PassesTheEngineFreeChecksOfTheInfraClusterConformanceKit is the same for
// DevCluster (the DockerCluster controller, Dev: true).
func TestDevCluster_PassesTheEngineFreeChecksOfTheInfraClusterConformanceKit(t *testing.T) {
	conformance.InfrastructureCluster(t, engineFreeInput(t, "DevCluster", func(namespace, name string) runtime.Object {
		return &infrav1.DevCluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: infrav1.DevClusterSpec{Backend: infrav1.DevClusterBackendSpec{Docker: &infrav1.DockerClusterBackendSpec{}}}}
	}, conformance.CheckControlPlaneEndpoint))
}
