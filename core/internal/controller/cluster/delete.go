package cluster

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/core/internal/runtime/tracking"
)

// deleteRequeue is how often a deleting Cluster re-checks what is left, on top of
// the watches on its descendants.
const deleteRequeue = 5 * time.Second

// reconcileDelete deletes the Cluster top-down: Machine groups and worker
// Machines, then the control plane, then the infrastructure cluster, then the
// finalizer. Each wait names what is left in the Deleting condition. A topology
// Cluster is left whole until the topology controller marked it ok-to-delete
// (its BeforeClusterDelete hook call allowed it, or no handler is registered), as
// upstream; the annotation's write brings the Cluster back here.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	log := ctrl.LoggerFrom(ctx)
	if c.Spec.Topology.IsDefined() && !tracking.IsOkToDelete(c) {
		s.deleting = deletingStatus{clusterv1.ClusterDeletingWaitingForBeforeDeleteHookReason,
			"Waiting for BeforeClusterDelete hook: nothing is deleted until the topology controller sets annotation " +
				runtimev1.OkToDeleteAnnotation + "; if a Runtime Extension holds the deletion, TopologyReconciled names it"}
		return ctrl.Result{}, nil
	}
	withCP := c.Spec.ControlPlaneRef.IsDefined()

	d, err := listDescendants(ctx, r.Client, c)
	if err != nil {
		return ctrl.Result{}, err
	}
	s.descendants, s.listedDescendants = d, true
	if left := d.remaining(withCP); left != "" {
		for _, obj := range d.toDelete(withCP) {
			if !obj.GetDeletionTimestamp().IsZero() {
				continue
			}
			log.Info("Deleting descendant", "kind", fmt.Sprintf("%T", obj), "name", obj.GetName())
			if err := r.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
				return ctrl.Result{}, fmt.Errorf("deleting %s: %w", obj.GetName(), err)
			}
		}
		s.deleting = deletingStatus{clusterv1.ClusterDeletingWaitingForWorkersDeletionReason, "Waiting for " + left + " to be deleted"}
		return ctrl.Result{RequeueAfter: deleteRequeue}, nil
	}

	for _, step := range []struct {
		ref    clusterv1.ContractVersionedObjectReference
		reason string
	}{
		{c.Spec.ControlPlaneRef, clusterv1.ClusterDeletingWaitingForControlPlaneDeletionReason},
		{c.Spec.InfrastructureRef, clusterv1.ClusterDeletingWaitingForInfrastructureDeletionReason},
	} {
		if !step.ref.IsDefined() {
			continue
		}
		gone, err := r.tracker.Delete(ctx, r.Client, step.ref, c.Namespace)
		if err != nil {
			s.deleting = deletingStatus{clusterv1.ClusterDeletingInternalErrorReason,
				fmt.Sprintf("Cannot delete %s: %v", objectName(step.ref), err)}
			return ctrl.Result{}, err
		}
		if !gone {
			s.deleting = deletingStatus{step.reason, fmt.Sprintf("Waiting for %s to be deleted", objectName(step.ref))}
			return ctrl.Result{RequeueAfter: deleteRequeue}, nil
		}
	}
	s.deleting = deletingStatus{clusterv1.ClusterDeletingDeletionCompletedReason, "Deletion completed"}
	log.Info("Removing finalizer: deletion completed")
	controllerutil.RemoveFinalizer(c, clusterv1.ClusterFinalizer)
	return ctrl.Result{}, nil
}
