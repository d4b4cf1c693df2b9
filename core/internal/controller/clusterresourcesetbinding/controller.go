package clusterresourcesetbinding

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/predicates"
	"capstan.dev/core/internal/runtime/tracking"
)

// +kubebuilder:rbac:groups=addons.cluster.x-k8s.io,resources=clusterresourcesetbindings,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch

// Reconciler deletes the ClusterResourceSetBindings of deleted Clusters.
type Reconciler struct {
	Client client.Client
	// APIReader confirms live that a Cluster missing from the cache is gone: a binding copied
	// by `capstanctl move` may reach this controller before its Cluster reaches the cache.
	APIReader client.Reader
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
}

// SetupWithManager registers the controller: bindings, and Clusters mapped to the binding of
// the same name.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil {
		return fmt.Errorf("clusterresourcesetbinding reconciler needs Client and APIReader")
	}
	err := ctrl.NewControllerManagedBy(mgr).
		For(&addonsv1.ClusterResourceSetBinding{}, builder.WithPredicates(
			predicates.ResourceNotPausedAndHasFilterLabel(mgr.GetLogger(), r.WatchFilterValue))).
		WithOptions(opts).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToBinding),
			builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		Complete(r)
	if err != nil {
		return fmt.Errorf("creating the clusterresourcesetbinding controller: %w", err)
	}
	return nil
}

// clusterToBinding requests the binding named after the Cluster.
func clusterToBinding(_ context.Context, o client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(o)}}
}

// Reconcile deletes the binding when its Cluster is gone or being deleted (a topology Cluster:
// once marked ok-to-delete).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	b := &addonsv1.ClusterResourceSetBinding{}
	if err := r.Client.Get(ctx, req.NamespacedName, b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", b.Spec.ClusterName)
	if predicates.HasPausedAnnotation(b) || !b.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	cluster := &clusterv1.Cluster{}
	key := client.ObjectKey{Namespace: b.Namespace, Name: b.Spec.ClusterName}
	err := r.Client.Get(ctx, key, cluster)
	if apierrors.IsNotFound(err) {
		err = r.APIReader.Get(ctx, key, cluster)
	}
	switch {
	case apierrors.IsNotFound(err):
		log.Info("Deleting ClusterResourceSetBinding: its Cluster no longer exists")
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("reading Cluster %s: %w", b.Spec.ClusterName, err)
	case predicates.IsPaused(cluster, cluster):
		return ctrl.Result{}, nil // the Cluster's pause covers what hangs off it
	case !cluster.DeletionTimestamp.IsZero() && cluster.Spec.Topology.IsDefined() && !tracking.IsOkToDelete(cluster):
		// As upstream: the binding stays while a BeforeClusterDelete hook may still stop the
		// deletion of a topology Cluster (the ok-to-delete annotation's write brings it back).
		return ctrl.Result{}, nil
	case !cluster.DeletionTimestamp.IsZero():
		log.Info("Deleting ClusterResourceSetBinding: its Cluster is being deleted")
	default:
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Delete(ctx, b, client.Preconditions{UID: &b.UID}))
}
