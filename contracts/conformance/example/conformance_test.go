package example_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/conformance"
	bootstrapv1 "capstan.dev/contracts/conformance/example/api/bootstrap/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	examplecontroller "capstan.dev/contracts/conformance/example/controller"
)

// These three tests are what a provider author's suite looks like: start the
// controller, call the kit with a *testing.T. Every check is a subtest.

// The machine test also uses the two hooks a provider with a real workload
// cluster needs: Setup registers each scenario's Node (here in the envtest API
// server, as the example's "kubelet" would, with the providerID its cloud
// provider would give it), and NodeProviderID reads it back for the kit to
// compare with spec.providerID.
func TestConformance_ExampleMachine(t *testing.T) {
	t.Parallel()
	in := input(startProvider(t, nil), infrav1.GroupVersion.WithKind("ExampleMachine"))
	in.ProviderIDScheme = examplecontroller.ProviderIDScheme
	in.Setup = func(ctx context.Context, f *conformance.Fixture) error {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: f.Object.GetName()},
			Spec: corev1.NodeSpec{ProviderID: examplecontroller.ProviderIDScheme + ":///" + f.Object.GetName()}}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), node) })
		return env.Client.Create(ctx, node)
	}
	in.NodeProviderID = func(ctx context.Context, f *conformance.Fixture) (string, error) {
		node := &corev1.Node{}
		err := env.Client.Get(ctx, client.ObjectKey{Name: f.Object.GetName()}, node)
		return node.Spec.ProviderID, client.IgnoreNotFound(err)
	}
	conformance.InfrastructureMachine(t, in)
}

func TestConformance_ExampleCluster(t *testing.T) {
	t.Parallel()
	conformance.InfrastructureCluster(t, input(startProvider(t, nil), infrav1.GroupVersion.WithKind("ExampleCluster")))
}

func TestConformance_ExampleConfig(t *testing.T) {
	t.Parallel()
	conformance.BootstrapConfig(t, input(startProvider(t, nil), bootstrapv1.GroupVersion.WithKind("ExampleConfig")))
}
