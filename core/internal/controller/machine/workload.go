package machine

import (
	"context"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"capstan.dev/contracts/remote"
)

// WorkloadClusters is what the Machine controller uses of contracts/remote's
// ClusterCache: clients for the workload cluster, Node watches, and a source that
// re-triggers Machines when a cluster connects.
type WorkloadClusters interface {
	GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetUncachedClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetRESTConfig(ctx context.Context, cluster client.ObjectKey) (*rest.Config, error)
	GetHealthCheckingState(cluster client.ObjectKey) remote.HealthCheckingState
	Watch(ctx context.Context, cluster client.ObjectKey, in remote.WatchInput) error
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}
