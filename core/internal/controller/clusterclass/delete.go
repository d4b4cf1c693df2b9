package clusterclass

import (
	"context"
	"fmt"
	"sort"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// reconcileDelete releases the class once no Cluster uses it. While some do, it keeps
// reconciling the class as usual (so their topologies keep working) and names them in Deleting;
// the Cluster watch brings the class back when one goes or moves to another class.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	users, err := r.clustersUsing(ctx, s.class)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(users) == 0 {
		s.deleting = true
		if controllerutil.RemoveFinalizer(s.class, clusterv1.ClusterClassFinalizer) {
			ctrl.LoggerFrom(ctx).Info("No Cluster uses the ClusterClass any more: removing its finalizer")
		}
		return ctrl.Result{}, nil
	}
	s.usedBy = users
	return r.reconcileNormal(ctx, s)
}

// clustersUsing lists (namespace/name, sorted) the Clusters whose topology names cc, in cc's
// namespace or, through classRef.namespace, in any other. Deleting Clusters count: their
// topology objects still come from the class until they are gone.
func (r *Reconciler) clustersUsing(ctx context.Context, cc *clusterv1.ClusterClass) ([]string, error) {
	clusters := &clusterv1.ClusterList{}
	if err := r.Client.List(ctx, clusters); err != nil {
		return nil, fmt.Errorf("listing Clusters to find those using ClusterClass %s: %w", cc.Name, err)
	}
	var out []string
	for i := range clusters.Items {
		c := &clusters.Items[i]
		if key, ok := classOf(c); ok && key == client.ObjectKeyFromObject(cc) {
			out = append(out, c.Namespace+"/"+c.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// classOf is the ClusterClass a Cluster's topology names: classRef.namespace, or the Cluster's.
func classOf(c *clusterv1.Cluster) (client.ObjectKey, bool) {
	if !c.Spec.Topology.IsDefined() || c.Spec.Topology.ClassRef.Name == "" {
		return client.ObjectKey{}, false
	}
	ns := c.Spec.Topology.ClassRef.Namespace
	if ns == "" {
		ns = c.Namespace
	}
	return client.ObjectKey{Namespace: ns, Name: c.Spec.Topology.ClassRef.Name}, true
}

// clusterToClusterClass requests the class a Cluster uses. On an update it is called for the old
// and the new object, so moving a Cluster to another class requests both classes.
func clusterToClusterClass(_ context.Context, o client.Object) []reconcile.Request {
	c, ok := o.(*clusterv1.Cluster)
	if !ok {
		return nil
	}
	if key, ok := classOf(c); ok {
		return []reconcile.Request{{NamespacedName: key}}
	}
	return nil
}

// classRefChanged passes Cluster creations and deletions, and updates that change which class
// the Cluster uses: its status changes say nothing to a class.
var classRefChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		oldC, okOld := e.ObjectOld.(*clusterv1.Cluster)
		newC, okNew := e.ObjectNew.(*clusterv1.Cluster)
		if !okOld || !okNew {
			return false
		}
		oldKey, oldOK := classOf(oldC)
		newKey, newOK := classOf(newC)
		return oldKey != newKey || oldOK != newOK
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}
