package machinedeployment

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/mdrollout"
)

// reconcileDelete deletes the MachineDeployment's MachineSets (each deletes its Machines) and
// removes the finalizer once they are all gone.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	if !controllerutil.ContainsFinalizer(s.md, clusterv1.MachineDeploymentFinalizer) {
		return ctrl.Result{}, nil
	}
	sets, err := r.ownedMachineSets(ctx, s.md, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(sets) == 0 {
		// The cache may not show a MachineSet created just before the deletion started: ask the
		// API server before letting the MachineDeployment go, or that MachineSet is orphaned.
		if sets, err = r.ownedMachineSets(ctx, s.md, r.APIReader); err != nil {
			return ctrl.Result{}, err
		}
	}
	s.machineSets = sets
	if len(sets) == 0 {
		log.Info("All MachineSets are gone, removing finalizer")
		controllerutil.RemoveFinalizer(s.md, clusterv1.MachineDeploymentFinalizer)
		return ctrl.Result{}, nil
	}
	var errs []error
	for _, ms := range sets {
		if !ms.DeletionTimestamp.IsZero() {
			continue
		}
		log.Info("Deleting MachineSet", "MachineSet", klog.KObj(ms))
		if err := r.Client.Delete(ctx, ms); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting MachineSet %s: %w", ms.Name, err))
		}
	}
	// MachineSet deletions bring the next reconcile through the MachineSet watch.
	return ctrl.Result{}, errors.Join(errs...)
}

// ownedMachineSets lists, through reader, the MachineSets md controls, whatever their labels.
func (r *Reconciler) ownedMachineSets(ctx context.Context, md *clusterv1.MachineDeployment, reader client.Reader) ([]*clusterv1.MachineSet, error) {
	list := &clusterv1.MachineSetList{}
	if err := reader.List(ctx, list, client.InNamespace(md.Namespace)); err != nil {
		return nil, fmt.Errorf("listing MachineSets in namespace %s: %w", md.Namespace, err)
	}
	var out []*clusterv1.MachineSet
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == md.UID {
			out = append(out, &list.Items[i])
		}
	}
	mdrollout.SortByRevision(out)
	return out, nil
}
