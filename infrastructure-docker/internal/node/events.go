package node

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// EventSource returns a source of reconcile requests for the objects whose node containers
// start, stop or go away, for a controller's WatchesRawSource. label is the container label
// naming the object (in the namespace of the container's io.capstan.cluster-namespace); newObject
// returns an empty object of the controller's kind with that name. The Docker event stream runs
// in mgr as a leader-elected runnable, so only the leader acts on events; events missed while the
// stream was down are caught by the periodic resync.
func EventSource(mgr ctrl.Manager, name string, rt *docker.Runtime, label string, newObject func(meta metav1.ObjectMeta) client.Object) (source.Source, error) {
	events := make(chan event.GenericEvent)
	err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		log := mgr.GetLogger().WithName(name).WithName("docker-events")
		rt.FollowContainers(ctx, func(err error) { log.Error(err, "Docker event stream failed; reconnecting") }, nil,
			func(ev docker.ContainerEvent) bool {
				objectName := ev.Labels[label]
				if objectName == "" || (ev.Role != docker.RoleControlPlane && ev.Role != docker.RoleWorker) {
					return true
				}
				select {
				case events <- event.GenericEvent{Object: newObject(metav1.ObjectMeta{Namespace: ev.Owner.Namespace, Name: objectName})}:
					return true
				case <-ctx.Done():
					return false
				}
			})
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return source.Channel(events, &handler.EnqueueRequestForObject{}), nil
}
