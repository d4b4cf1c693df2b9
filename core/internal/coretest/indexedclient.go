package coretest

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/machineindex"
)

// IndexedFakeClient is a fake client holding objs, with the manager's index of Machines by
// controller (machineindex), and the number of Machines its List calls returned so far: a test
// of a reader that must not walk every Machine of a Cluster counts what it was handed.
func IndexedFakeClient(t *testing.T, objs ...client.Object) (client.Client, *int) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clusterv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	listed := new(int)
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithIndex(&clusterv1.Machine{}, machineindex.ByController, machineindex.ControllerKey).Build(), interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			err := c.List(ctx, list, opts...)
			if machines, ok := list.(*clusterv1.MachineList); ok {
				*listed += len(machines.Items)
			}
			return err
		},
	})
	return c, listed
}
