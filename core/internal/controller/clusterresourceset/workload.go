package clusterresourceset

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"capstan.dev/contracts/remote"
)

// WorkloadClusters is what the controller uses of contracts/remote's ClusterCache: a client for
// a workload cluster and a source that re-triggers ClusterResourceSets when one connects.
type WorkloadClusters interface {
	GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}
