package node

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// ClusterObjects returns the reconcile requests of a controller's objects that belong to a
// Cluster, such as mapping.ClusterToObjects gives.
type ClusterObjects func(ctx context.Context, cluster client.ObjectKey) []reconcile.Request

// EventSource returns a source of reconcile requests for a controller's WatchesRawSource, from
// the Docker events of the plane's containers (start, stop, removal). A node container's event
// requests the object its label names (in the namespace of the container's
// io.capstan.cluster-namespace); an event of any container of a Cluster (node or load
// balancer) also requests every object of that Cluster (clusterObjects), because each node
// lists the others in /etc/hosts (SyncClusterAddresses). The Docker event stream runs in mgr
// as a leader-elected runnable, so only the leader acts on events. After the stream failed (a
// dockerd restart) every container of the plane is sent again as a "resync" event before the
// stream resumes: events missed meanwhile would otherwise wait for the periodic resync.
func EventSource(mgr ctrl.Manager, name string, rt *docker.Runtime, label string, clusterObjects ClusterObjects) (source.Source, error) {
	events := make(chan event.TypedGenericEvent[docker.ContainerEvent])
	err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		log := mgr.GetLogger().WithName(name).WithName("docker-events")
		send := func(ev docker.ContainerEvent) bool {
			if ev.Owner.Cluster == "" {
				return true
			}
			select {
			case events <- event.TypedGenericEvent[docker.ContainerEvent]{Object: ev}:
				return true
			case <-ctx.Done():
				return false
			}
		}
		resync := func() bool {
			evs, err := ResyncEvents(ctx, rt)
			if err != nil {
				log.Error(err, "Listing the plane's containers after the Docker event stream failed; the periodic resync catches up")
			}
			for _, ev := range evs {
				if !send(ev) {
					return false
				}
			}
			return true
		}
		rt.FollowContainers(ctx, func(err error) { log.Error(err, "Docker event stream failed; reconnecting") }, resync, send)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	toRequests := func(ctx context.Context, ev docker.ContainerEvent) []reconcile.Request {
		var out []reconcile.Request
		if objectName := ev.Labels[label]; objectName != "" && (ev.Role == docker.RoleControlPlane || ev.Role == docker.RoleWorker) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ev.Owner.Namespace, Name: objectName}})
		}
		return append(out, clusterObjects(ctx, client.ObjectKey{Namespace: ev.Owner.Namespace, Name: ev.Owner.Cluster})...)
	}
	return source.Channel(events, handler.TypedEnqueueRequestsFromMapFunc(toRequests)), nil
}

// ResyncEvents are "resync" events for every container of rt's plane, running or not: what a
// watcher sends itself after its stream failed, so that every object with a container is
// reconciled against what happened while it was not watching.
func ResyncEvents(ctx context.Context, rt *docker.Runtime) ([]docker.ContainerEvent, error) {
	list, err := rt.List(ctx, docker.Selector{})
	if err != nil {
		return nil, err
	}
	out := make([]docker.ContainerEvent, 0, len(list))
	for _, c := range list {
		out = append(out, docker.ContainerEvent{Action: "resync", Name: c.Name, Owner: c.Owner, Role: c.Role, Labels: c.Labels})
	}
	return out, nil
}

// DockerClusterToObjects maps a DockerCluster (or DevCluster) to the objects of the Clusters whose
// spec.infrastructureRef names it (the relation the endpoint route reads the load balancer's
// address through), for a controller's watch on DockerClusters.
func DockerClusterToObjects(c client.Reader, clusterObjects ClusterObjects) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		clusters := &clusterv1.ClusterList{}
		if err := c.List(ctx, clusters, client.InNamespace(o.GetNamespace())); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing Clusters to map a DockerCluster event")
			return nil // the periodic resync catches up
		}
		var out []reconcile.Request
		for _, cluster := range clusters.Items {
			ref := cluster.Spec.InfrastructureRef
			if (ref.Kind == "DockerCluster" || ref.Kind == "DevCluster") && ref.APIGroup == infrav1.GroupVersion.Group && ref.Name == o.GetName() {
				out = append(out, clusterObjects(ctx, client.ObjectKeyFromObject(&cluster))...)
			}
		}
		return out
	}
}

// LoadBalancerAddressChanged passes the DockerCluster updates that change the load balancer's
// address on the node network (the load balancer was re-created): the nodes' endpoint routes
// and /etc/hosts point at it.
func LoadBalancerAddressChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			key := infrav1.LoadBalancerAddressAnnotation
			return e.ObjectOld.GetAnnotations()[key] != e.ObjectNew.GetAnnotations()[key]
		},
	}
}
