package example_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conformance"
	bootstrapv1 "capstan.dev/contracts/conformance/example/api/bootstrap/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	examplecontroller "capstan.dev/contracts/conformance/example/controller"
	"capstan.dev/contracts/conformance/internal/recorder"
	"capstan.dev/contracts/envtest"
)

// brokenCase is the example provider with one contract violation, made by a client
// wrapper between its reconcilers and the API server, and the kit's verdict on it:
// exactly the checks in wantFailed fail, each saying wantMessage.
type brokenCase struct {
	name        string
	kind        string
	funcs       interceptor.Funcs
	wantFailed  []conformance.Check
	wantMessage string
}

var brokenCases = []brokenCase{
	{
		name: "MachineIgnoresPause", kind: "ExampleMachine",
		// The reconciler never sees the paused annotation nor Cluster.spec.paused.
		funcs: interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			switch o := obj.(type) {
			case *infrav1.ExampleMachine:
				delete(o.Annotations, clusterv1.PausedAnnotation)
			case *clusterv1.Cluster:
				o.Spec.Paused = nil
			}
			return nil
		}},
		wantFailed:  []conformance.Check{conformance.CheckPausedByAnnotation, conformance.CheckPausedByCluster, conformance.CheckPausedCondition},
		wantMessage: "the provider changed the object while paused",
	},
	{
		name: "MachineNeverRemovesFinalizer", kind: "ExampleMachine",
		// Every write to a deleting ExampleMachine is lost.
		funcs: interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			if m, ok := obj.(*infrav1.ExampleMachine); ok && !m.DeletionTimestamp.IsZero() {
				return nil
			}
			return c.Patch(ctx, obj, p, opts...)
		}},
		wantFailed:  []conformance.Check{conformance.CheckDelete},
		wantMessage: "still exists",
	},
	{
		name: "MachineProvisionsWithoutOwner", kind: "ExampleMachine",
		// The reconciler finds its Machine through Machine.spec.infrastructureRef
		// instead of waiting for the owner reference.
		funcs: interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			m, ok := obj.(*infrav1.ExampleMachine)
			if !ok || metav1.GetControllerOf(m) != nil {
				return nil
			}
			machines := &clusterv1.MachineList{}
			if err := c.List(ctx, machines, client.InNamespace(m.Namespace)); err != nil {
				return err
			}
			for _, machine := range machines.Items {
				if machine.Spec.InfrastructureRef.Name == m.Name {
					m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(),
						Kind: "Machine", Name: machine.Name, UID: machine.UID, Controller: ptr.To(true)})
				}
			}
			return nil
		}},
		wantFailed:  []conformance.Check{conformance.CheckWaitsForOwner},
		wantMessage: "although the object has no owner reference to a Machine",
	},
	{
		name: "MachineProviderIDWithoutScheme", kind: "ExampleMachine",
		// spec.providerID is written as a bare name.
		funcs: interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			if m, ok := obj.(*infrav1.ExampleMachine); ok {
				m.Spec.ProviderID = strings.TrimPrefix(m.Spec.ProviderID, examplecontroller.ProviderIDScheme+":///")
			}
			return c.Patch(ctx, obj, p, opts...)
		}},
		wantFailed:  []conformance.Check{conformance.CheckProviderID},
		wantMessage: "which is not of the form <scheme>://<id>",
	},
	{
		name: "ClusterWithoutEndpoint", kind: "ExampleCluster",
		// spec.controlPlaneEndpoint is never written.
		funcs: interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			if ec, ok := obj.(*infrav1.ExampleCluster); ok {
				ec.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{}
			}
			return c.Patch(ctx, obj, p, opts...)
		}},
		wantFailed:  []conformance.Check{conformance.CheckControlPlaneEndpoint},
		wantMessage: "InfraCluster: control plane endpoint",
	},
	{
		name: "ConfigSecretWithoutFormat", kind: "ExampleConfig",
		// The data Secret is written without its format key.
		funcs: interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if s, ok := obj.(*corev1.Secret); ok {
				delete(s.Data, "format")
			}
			return c.Create(ctx, obj, opts...)
		}},
		wantFailed:  []conformance.Check{conformance.CheckDataSecret},
		wantMessage: `has no key "format"`,
	},
}

// TestConformance_CatchesBrokenProviders runs the kit, through a recorder instead
// of a failing *testing.T, against each broken variant, and requires exactly the
// check for that violation to fail, with a message naming it, and every other
// check to pass. The variants run in parallel: each has its own manager, watch
// filter and namespace.
func TestConformance_CatchesBrokenProviders(t *testing.T) {
	for _, tc := range brokenCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			funcs := tc.funcs
			filter := startProvider(t, func(c client.Client) client.Client { return envtest.Intercept(c, funcs) })
			gv := infrav1.GroupVersion
			if tc.kind == "ExampleConfig" {
				gv = bootstrapv1.GroupVersion
			}
			in := input(filter, gv.WithKind(tc.kind))
			in.ProviderIDScheme = examplecontroller.ProviderIDScheme
			in.Timeout = 5 * time.Second

			rec := recorder.Record(t, func(r *recorder.Recorder) {
				switch tc.kind {
				case "ExampleMachine":
					conformance.InfrastructureMachine(r, in)
				case "ExampleCluster":
					conformance.InfrastructureCluster(r, in)
				default:
					conformance.BootstrapConfig(r, in)
				}
			})

			want := make([]string, 0, len(tc.wantFailed))
			for _, c := range tc.wantFailed {
				want = append(want, string(c))
			}
			require.Equal(t, want, rec.FailedTests(), "failed checks")
			require.Empty(t, rec.SkippedTests(), "no check may be skipped")
			require.Contains(t, rec.Messages(string(tc.wantFailed[0])), tc.wantMessage)
			require.Greater(t, len(rec.Outcomes()), 10, "every check ran")
		})
	}
}
