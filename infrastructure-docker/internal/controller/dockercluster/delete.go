package dockercluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
		machines := r.kinds().NewMachineList()
		if err := r.Client.List(ctx, machines, client.InNamespace(dc.Namespace),
			client.MatchingLabels{clusterv1.ClusterNameLabel: s.owner.Cluster}); err != nil {
			s.deleting = &problem{infrav1.DockerClusterDeletingReason, err.Error()}
			return ctrl.Result{}, fmt.Errorf("listing the %ss of Cluster %s/%s: %w", r.kinds().Machine, dc.Namespace, s.owner.Cluster, err)
		}
		if n := meta.LenList(machines); n > 0 {
			names := make([]string, 0, n)
			_ = meta.EachListItem(machines, func(o runtime.Object) error {
				if m, ok := o.(metav1.Object); ok {
					names = append(names, m.GetName())
				}
				return nil
			})
			sort.Strings(names)
			if len(names) > 5 {
				names = append(names[:5], "...")
			}
			s.deleting = &problem{infrav1.DockerClusterDeletingWaitingForMachinesReason, fmt.Sprintf(
				"Waiting for %d %ss to be deleted (%s): the load balancer stays until the last node is gone", n, r.kinds().Machine, strings.Join(names, ", "))}
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
		err := r.Docker.Remove(ctx, lb)
		r.recordDelete(s, name, err)
		if err != nil {
			return ctrl.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(dc, infrav1.ClusterFinalizer)
	return ctrl.Result{}, nil
}
