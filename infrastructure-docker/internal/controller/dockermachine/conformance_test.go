package dockermachine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conformance"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// TestDockerMachine_PassesTheInfraMachineConformanceKit runs the kit third-party providers
// run against the docker provider's DockerMachine: the same contract, checked the same way.
// The workload cluster is the envtest API server, where the kit's Setup registers the Node.
func TestDockerMachine_PassesTheInfraMachineConformanceKit(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	watched := func(o metav1.Object) {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterv1.WatchLabel] = rt.Plane()
		o.SetLabels(labels)
	}
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
		Setup: func(ctx context.Context, f *conformance.Fixture) error {
			env.CreateKubeconfigSecret(t, f.Cluster)
			createNode(t, f.Object.GetName()) // the container, hostname and Node share the object's name
			return nil
		},
		NodeProviderID: func(ctx context.Context, f *conformance.Fixture) (string, error) {
			n := &corev1.Node{}
			err := env.Client.Get(ctx, client.ObjectKey{Name: f.Object.GetName()}, n)
			return n.Spec.ProviderID, client.IgnoreNotFound(err)
		},
	})
}
