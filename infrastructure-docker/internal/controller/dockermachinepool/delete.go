package dockermachinepool

import (
	"context"
	"fmt"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// reconcileDelete removes every node container of the pool with its volumes, then the
// finalizer. The Deleting condition is written before anything is removed, so that users see
// what deletion is doing; a removal that fails leaves the finalizer, and the error in the
// condition, until the next attempt succeeds. The MachinePool controller deletes the pool's
// Nodes.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	pool := s.pool
	if !controllerutil.ContainsFinalizer(pool, infrav1.MachinePoolFinalizer) {
		return ctrl.Result{}, nil
	}
	containers, err := r.Docker.List(ctx, selector(pool))
	if err != nil {
		s.deleting = &problem{infrav1.DockerMachinePoolDeletingReason, fmt.Sprintf("Listing the node containers of the pool: %v", err)}
		return ctrl.Result{}, err
	}
	names := make([]string, 0, len(containers))
	for _, c := range containers {
		names = append(names, c.Name)
	}
	if len(names) > 0 {
		s.deleting = &problem{infrav1.DockerMachinePoolDeletingReason, fmt.Sprintf(
			"Removing %d node containers and their volumes: %s", len(names), strings.Join(names, ", "))}
	} else {
		s.deleting = &problem{infrav1.DockerMachinePoolDeletingReason, "No node container left; removing the finalizer"}
	}
	if c := conditions.Get(pool, infrav1.DockerMachinePoolDeletingCondition); c == nil || c.Reason != infrav1.DockerMachinePoolDeletingReason {
		return ctrl.Result{RequeueAfter: deletingRecorded}, nil // record the condition first
	}
	removed := &removals{}
	defer r.recordRemovals(s, removed)
	for _, c := range containers {
		ctrl.LoggerFrom(ctx).Info("Removing a node container and its volumes", "container", c.Name)
		if err := r.Docker.Remove(ctx, &c); err != nil {
			r.recordDeleteFailed(s, c.Name, whyDeleting, err)
			s.deleting = &problem{infrav1.DockerMachinePoolDeletingReason, fmt.Sprintf(
				"Removing node container %s failed (retrying): %v", c.Name, err)}
			return ctrl.Result{}, err
		}
		removed.deleting = append(removed.deleting, c.Name)
	}
	// Instances whose containers were removed outside Capstan leave their /var volumes behind.
	if s.owner.Cluster != "" {
		for _, in := range pool.Status.Instances {
			if err := r.Docker.RemoveVolumes(ctx, s.owner, in.InstanceName); err != nil {
				s.deleting = &problem{infrav1.DockerMachinePoolDeletingReason, fmt.Sprintf(
					"Removing the volumes of instance %s failed (retrying): %v", in.InstanceName, err)}
				return ctrl.Result{}, err
			}
		}
	}
	controllerutil.RemoveFinalizer(pool, infrav1.MachinePoolFinalizer)
	return ctrl.Result{}, nil
}
