package dockermachine

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

// TestDockerMachine_PassesTheInfraMachineConformanceKit runs the kit third-party providers
// run against the docker provider's DockerMachine: the same contract, checked the same way.
// The workload cluster is the envtest API server, where the kit's Setup registers the Node.
func TestDockerMachine_PassesTheInfraMachineConformanceKit(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	watched := nodetest.WatchedBy(rt.Plane())
	setup, nodeProviderID := nodetest.KitNodeHooks(t, env)
	conformance.InfrastructureMachine(t, conformance.Input{
		Client: env.Client,
		GVK:    infrav1.GroupVersion.WithKind("DockerMachine"),
		NewObject: func(namespace, name string) *unstructured.Unstructured {
			dm := &infrav1.DockerMachine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
				Spec: infrav1.DockerMachineSpec{DockerMachineBackendSpec: infrav1.DockerMachineBackendSpec{CustomImage: testImage}}}
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(dm)
			require.NoError(t, err)
			u := &unstructured.Unstructured{Object: obj}
			u.SetGroupVersionKind(infrav1.GroupVersion.WithKind("DockerMachine"))
			return u
		},
		Timeout:          2 * time.Minute,
		ProviderIDScheme: "docker",
		Prepare: func(f *conformance.Fixture) {
			watched(f.Cluster)
			watched(f.Machine)
			watched(f.Object)
			f.Machine.Spec.Version = "v1.37.2"
		},
		Setup:          setup,
		NodeProviderID: nodeProviderID,
	})
}
