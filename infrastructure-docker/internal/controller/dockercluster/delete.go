package dockercluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// reconcileDelete waits for the cluster's DockerMachines to go (their nodes sit behind the load
// balancer), removes the load balancer, then the finalizer. The Deleting condition is written
// before anything is removed, so that users see what deletion is doing.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	dc := s.dockerCluster
	if !controllerutil.ContainsFinalizer(dc, infrav1.ClusterFinalizer) {
		return ctrl.Result{}, nil
	}
	if s.owner.Cluster != "" {
		machines := &infrav1.DockerMachineList{}
		if err := r.Client.List(ctx, machines, client.InNamespace(dc.Namespace),
			client.MatchingLabels{clusterv1.ClusterNameLabel: s.owner.Cluster}); err != nil {
			s.deleting = &problem{infrav1.DockerClusterDeletingReason, err.Error()}
			return ctrl.Result{}, fmt.Errorf("listing the DockerMachines of Cluster %s/%s: %w", dc.Namespace, s.owner.Cluster, err)
		}
		if n := len(machines.Items); n > 0 {
			names := make([]string, 0, n)
			for _, m := range machines.Items {
				names = append(names, m.Name)
			}
			sort.Strings(names)
			if len(names) > 5 {
				names = append(names[:5], "...")
			}
			s.deleting = &problem{infrav1.DockerClusterDeletingWaitingForMachinesReason, fmt.Sprintf(
				"Waiting for %d DockerMachines to be deleted (%s): the load balancer stays until the last node is gone", n, strings.Join(names, ", "))}
			return ctrl.Result{}, nil // a DockerMachine deletion re-triggers us
		}
	}
	if s.owner.Cluster == "" {
		// Never linked to a Cluster: nothing of ours can exist.
		controllerutil.RemoveFinalizer(dc, infrav1.ClusterFinalizer)
		return ctrl.Result{}, nil
	}
	name := loadBalancerName(s.owner.Cluster)
	s.deleting = &problem{infrav1.DockerClusterDeletingReason, "Removing the load balancer container " + name}
	if c := conditions.Get(dc, infrav1.DockerClusterDeletingCondition); c == nil || c.Reason != infrav1.DockerClusterDeletingReason {
		return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil // record the condition first
	}
	lb, err := r.Docker.Inspect(ctx, name)
	switch {
	case errors.Is(err, docker.ErrNotFound), errors.Is(err, docker.ErrNotOurs):
		// Gone already, or never ours: nothing to remove.
	case err != nil:
		return ctrl.Result{}, err
	case lb.Owner != s.owner:
		// Another Cluster's load balancer of the same name: not ours to remove.
	default:
		ctrl.LoggerFrom(ctx).Info("Removing the load balancer container", "container", name)
		if err := r.Docker.Remove(ctx, lb); err != nil {
			return ctrl.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(dc, infrav1.ClusterFinalizer)
	return ctrl.Result{}, nil
}
