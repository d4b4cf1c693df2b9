package coretest

import (
	"context"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// StandInForMachineController registers on mgr a controller that plays the two parts of the
// Machine controller that MachineSets rely on: it gives a new Machine its first status (phase
// Pending), after which the MachineSet maintains its UpToDate condition, and it removes the
// Machine finalizer, which MachineSets create their Machines with, from deleted Machines, as
// the Machine controller does once it has cleaned up. Suites that run MachineSets without the
// Machine controller need it.
func StandInForMachineController(t *testing.T, mgr ctrl.Manager) {
	t.Helper()
	c := mgr.GetClient()
	err := ctrl.NewControllerManagedBy(mgr).For(&clusterv1.Machine{}).
		Named("machine-finalizer-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(reconcile.Func(func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
			m := &clusterv1.Machine{}
			if err := c.Get(ctx, req.NamespacedName, m); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			base := m.DeepCopy()
			if m.DeletionTimestamp.IsZero() {
				if m.Status.Phase != "" {
					return ctrl.Result{}, nil
				}
				m.Status.Phase = string(clusterv1.MachinePhasePending)
				return ctrl.Result{}, client.IgnoreNotFound(c.Status().Patch(ctx, m, client.MergeFrom(base)))
			}
			if controllerutil.RemoveFinalizer(m, clusterv1.MachineFinalizer) {
				return ctrl.Result{}, client.IgnoreNotFound(c.Patch(ctx, m, client.MergeFrom(base)))
			}
			return ctrl.Result{}, nil
		}))
	if err != nil {
		t.Fatalf("registering the Machine finalizer stand-in: %v", err)
	}
}
