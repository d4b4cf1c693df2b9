package devkinds_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"capstan.dev/contracts/conformance"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

func unstructuredOf(t *testing.T, obj runtime.Object, kind string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(infrav1.GroupVersion.WithKind(kind))
	return u
}

// engineInput starts the Docker and Dev controllers (as the RBAC-marker user) on a Docker
// management plane of the test's own, with real containers, and returns the kit's input for
// kind, whose objects object makes.
func engineInput(t *testing.T, kind string, object func(namespace, name string) runtime.Object) conformance.Input {
	t.Helper()
	rt := nodetest.Docker(t)
	startControllers(t, rt.Plane())
	watched := nodetest.WatchedBy(rt.Plane())
	return conformance.Input{
		Client: env.Client,
		GVK:    infrav1.GroupVersion.WithKind(kind),
		NewObject: func(namespace, name string) *unstructured.Unstructured {
			return unstructuredOf(t, object(namespace, name), kind)
		},
		Timeout:          2 * time.Minute,
		ProviderIDScheme: "docker",
		Prepare: func(f *conformance.Fixture) {
			watched(f.Cluster)
			watched(f.Object)
			if f.Machine != nil {
				watched(f.Machine)
				f.Machine.Spec.Version = "v1.37.2"
			}
		},
	}
}

// TestDevMachine_PassesTheInfraMachineConformanceKit runs the whole provider conformance kit on
// DevMachine, served by the DockerMachine controller (Dev: true), with real containers of the
// small test image: CRDs, schema, provisioning with its providerID on the Node, pause and
// deletion, as the DockerMachine suite runs it on DockerMachine. The workload cluster is the
// envtest API server, where Setup registers the Node the container's kubelet would.
func TestDevMachine_PassesTheInfraMachineConformanceKit(t *testing.T) {
	in := engineInput(t, "DevMachine", func(namespace, name string) runtime.Object {
		return &infrav1.DevMachine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: infrav1.DevMachineSpec{Backend: infrav1.DevMachineBackendSpec{Docker: &infrav1.DockerMachineBackendSpec{
				CustomImage: nodetest.TestImage}}}}
	})
	in.Setup, in.NodeProviderID = nodetest.KitNodeHooks(t, env)
	conformance.InfrastructureMachine(t, in)
}

// TestDevCluster_PassesTheInfraClusterConformanceKit is the same for DevCluster (the
// DockerCluster controller, Dev: true), with a real load balancer container.
func TestDevCluster_PassesTheInfraClusterConformanceKit(t *testing.T) {
	conformance.InfrastructureCluster(t, engineInput(t, "DevCluster", func(namespace, name string) runtime.Object {
		return &infrav1.DevCluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: infrav1.DevClusterSpec{Backend: infrav1.DevClusterBackendSpec{Docker: &infrav1.DockerClusterBackendSpec{}}}}
	}))
}
