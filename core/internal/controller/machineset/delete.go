package machineset

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// reconcileDelete deletes the MachineSet's Machines and removes the finalizer once they are all
// gone. It does not wait for Machines it could no longer select (they were released), only for
// the ones it owns.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	if !controllerutil.ContainsFinalizer(s.ms, clusterv1.MachineSetFinalizer) {
		return ctrl.Result{}, nil
	}
	machines, err := r.ownedMachines(ctx, s, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(machines) == 0 {
		// The cache may not have seen a Machine created just before the deletion started: ask
		// the API server before letting the MachineSet go, or that Machine would be orphaned.
		if machines, err = r.ownedMachines(ctx, s, r.APIReader); err != nil {
			return ctrl.Result{}, err
		}
	}
	s.machines, s.machinesRead = machines, true
	if len(machines) == 0 {
		log.Info("All Machines are gone, removing finalizer")
		controllerutil.RemoveFinalizer(s.ms, clusterv1.MachineSetFinalizer)
		return ctrl.Result{}, nil
	}
	var errs []error
	for _, m := range machines {
		if deleting(m) {
			continue
		}
		log.Info("Deleting Machine", "Machine", klog.KObj(m))
		err := r.Client.Delete(ctx, m)
		if err != nil && !apierrors.IsNotFound(err) {
			r.recordDelete(s.ms, m, "MachineSet deletion", err)
			errs = append(errs, fmt.Errorf("deleting Machine %s: %w", m.Name, err))
			continue
		}
		r.recordDelete(s.ms, m, "MachineSet deletion", nil)
	}
	// Machine deletions bring the next reconcile through the Machine watch.
	return ctrl.Result{}, errors.Join(errs...)
}
