package machinepool

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"capstan.dev/contracts/remote"
)

// WorkloadClusters is what the MachinePool controller uses of contracts/remote's
// ClusterCache: a cached client (whose Node cache carries remote.NodeProviderIDIndex)
// to find and delete Nodes, a Node watch, and a source that re-triggers MachinePools
// when a cluster connects or disconnects.
type WorkloadClusters interface {
	GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	Watch(ctx context.Context, cluster client.ObjectKey, in remote.WatchInput) error
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}
