// Package mapping owns the map functions controllers use to turn an event on one object into
// reconcile requests for others, for the relations the contract defines (a Cluster and the
// objects labelled cluster.x-k8s.io/cluster-name with its name). It only reads, through the
// client it is given, and never decides what a controller watches.
package mapping

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ClusterToObjects returns a map function that requests every object of list's kind in a
// Cluster's namespace labelled with its name. newList returns an empty list of that kind, such as
// &clusterv1.MachineList{}. A failed list requests nothing: the periodic resync catches up.
func ClusterToObjects(c client.Reader, newList func() client.ObjectList) func(context.Context, client.ObjectKey) []reconcile.Request {
	return func(ctx context.Context, cluster client.ObjectKey) []reconcile.Request {
		list := newList()
		if err := c.List(ctx, list, client.InNamespace(cluster.Namespace),
			client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}); err != nil {
			return nil
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(items))
		for _, item := range items {
			if obj, ok := item.(client.Object); ok {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			}
		}
		return out
	}
}

// ClusterObjectToObjects is ClusterToObjects for handler.EnqueueRequestsFromMapFunc on a Cluster
// watch.
func ClusterObjectToObjects(c client.Reader, newList func() client.ObjectList) func(context.Context, client.Object) []reconcile.Request {
	toObjects := ClusterToObjects(c, newList)
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return toObjects(ctx, client.ObjectKeyFromObject(o))
	}
}
