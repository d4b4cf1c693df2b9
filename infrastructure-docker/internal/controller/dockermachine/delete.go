package dockermachine

import (
	"context"
	"errors"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// reconcileDelete removes the node container with its volumes, then the finalizer. The
// Deleting condition is written before anything is removed, so that users see what deletion is
// doing. The load balancer forgets a removed control-plane node through the DockerCluster
// controller's watch on Docker events.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	dm := s.dockerMachine
	if !controllerutil.ContainsFinalizer(dm, infrav1.MachineFinalizer) {
		return ctrl.Result{}, nil
	}
	name := s.containerName
	if name == "" {
		// Never linked to a Machine: no container was made for it.
		controllerutil.RemoveFinalizer(dm, infrav1.MachineFinalizer)
		return ctrl.Result{}, nil
	}
	s.deleting = &problem{infrav1.DockerMachineDeletingReason, "Removing the node container " + name + " and its volumes"}
	if c := conditions.Get(dm, infrav1.DockerMachineDeletingCondition); c == nil || c.Reason != infrav1.DockerMachineDeletingReason {
		return ctrl.Result{RequeueAfter: deletingRecorded}, nil // record the condition first
	}
	c, err := r.Docker.Inspect(ctx, name)
	switch {
	case errors.Is(err, docker.ErrNotFound):
		// Removed outside Capstan (or by an earlier pass): its /var volume may be left.
		if err := r.Docker.RemoveVolumes(ctx, s.owner, name); err != nil {
			return ctrl.Result{}, err
		}
	case errors.Is(err, docker.ErrNotOurs):
		// Never ours: nothing to remove.
	case err != nil:
		return ctrl.Result{}, err
	case c.Owner != s.owner || c.Labels[DockerMachineLabel] != dm.Name:
		// Another DockerMachine's container of the same name: not ours to remove.
	default:
		ctrl.LoggerFrom(ctx).Info("Removing the node container and its volumes")
		err := r.Docker.Remove(ctx, c)
		r.recordDelete(s, err)
		if err != nil {
			return ctrl.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(dm, infrav1.MachineFinalizer)
	return ctrl.Result{}, nil
}
