package machinepool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
)

const (
	// defaultNodeDeletionTimeout bounds the attempts to delete the pool's Nodes when the
	// workload cluster cannot be reached, as the Machine controller's default does.
	defaultNodeDeletionTimeout = 10 * time.Second
	// disconnectedRequeue is how soon Node deletion is retried while disconnected.
	disconnectedRequeue = 5 * time.Second
)

// Reasons of the pool's Deleting condition.
const (
	deletingWaitingForInfrastructureReason = "WaitingForInfrastructureDeletion"
	deletingWaitingForBootstrapReason      = "WaitingForBootstrapDeletion"
	deletingDeletingNodesReason            = "DeletingNodes"
)

// reconcileDelete takes a pool apart in order: the InfraMachinePool (which removes the
// instances), then the bootstrap config, then the pool's Nodes, then the finalizer.
// Every step that waits says what for in the Deleting condition.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	mp := s.pool
	if !controllerutil.ContainsFinalizer(mp, clusterv1.MachinePoolFinalizer) {
		return ctrl.Result{}, nil
	}
	infraRef := mp.Spec.Template.Spec.InfrastructureRef
	if gone, err := r.tracker.Delete(ctx, r.Client, infraRef, mp.Namespace); err != nil || !gone {
		s.deleting = deletingStatus{deletingWaitingForInfrastructureReason,
			fmt.Sprintf("Waiting for %s %s to be deleted", infraRef.Kind, infraRef.Name)}
		return ctrl.Result{}, err // its deletion is a watch event
	}
	if ref := mp.Spec.Template.Spec.Bootstrap.ConfigRef; ref.IsDefined() {
		if gone, err := r.tracker.Delete(ctx, r.Client, ref, mp.Namespace); err != nil || !gone {
			s.deleting = deletingStatus{deletingWaitingForBootstrapReason,
				fmt.Sprintf("Waiting for %s %s to be deleted", ref.Kind, ref.Name)}
			return ctrl.Result{}, err
		}
	}
	if res, err := r.deleteNodes(ctx, s); err != nil || res.RequeueAfter > 0 {
		return res, err
	}
	s.deleting = deletingStatus{clusterv1.DeletionCompletedReason, "Deletion completed"}
	ctrl.LoggerFrom(ctx).Info("Removing finalizer: deletion completed")
	controllerutil.RemoveFinalizer(mp, clusterv1.MachinePoolFinalizer)
	return ctrl.Result{}, nil
}

// deleteNodes deletes the Nodes recorded in status.nodeRefs. It does not when the whole
// Cluster is going away (its Nodes go with it), and gives up after
// spec.template.spec.deletion.nodeDeletionTimeoutSeconds (10s by default, 0: never) when
// the workload cluster cannot be reached.
func (r *Reconciler) deleteNodes(ctx context.Context, s *scope) (ctrl.Result, error) {
	mp := s.pool
	if len(mp.Status.NodeRefs) == 0 || s.cluster == nil || !s.cluster.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	names := nodeRefNames(mp.Status.NodeRefs)
	s.deleting = deletingStatus{deletingDeletingNodesReason, "Deleting Nodes " + strings.Join(names, ", ")}

	c, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if err == nil {
		var errs []error
		for _, ref := range mp.Status.NodeRefs {
			errs = append(errs, deleteNode(ctx, c, ref, "its MachinePool is being deleted"))
		}
		if err = errors.Join(errs...); err == nil {
			mp.Status.NodeRefs = nil
			return ctrl.Result{}, nil
		}
	}
	timeout := defaultNodeDeletionTimeout
	if t := mp.Spec.Template.Spec.Deletion.NodeDeletionTimeoutSeconds; t != nil {
		timeout = time.Duration(*t) * time.Second
	}
	if timeout > 0 && time.Since(mp.DeletionTimestamp.Time) > timeout {
		ctrl.LoggerFrom(ctx).Info("Giving up deleting the Nodes after the node deletion timeout", "error", err.Error())
		return ctrl.Result{}, nil
	}
	if errors.Is(err, remote.ErrClusterNotConnected) {
		s.deleting.message = fmt.Sprintf("Waiting to delete Nodes %s: %v", strings.Join(names, ", "), err)
		return ctrl.Result{RequeueAfter: disconnectedRequeue}, nil
	}
	return ctrl.Result{}, err
}

// nodeRefNames lists the names of Node references, for messages.
func nodeRefNames(refs []corev1.ObjectReference) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}
