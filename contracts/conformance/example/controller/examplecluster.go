package controller

import (
	"context"
	"errors"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// +kubebuilder:rbac:groups=infrastructure.example.capstan.dev,resources=exampleclusters;exampleclusters/status;exampleclusters/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch

// ExampleClusterReconciler reconciles ExampleClusters.
type ExampleClusterReconciler struct {
	Client client.Client
	// WatchFilterValue limits reconciliation to objects labelled
	// cluster.x-k8s.io/watch-filter=<value> (--watch-filter).
	WatchFilterValue string
}

// SetupWithManager watches ExampleClusters, and Clusters for the transitions a
// child waits for (unpaused, ...).
func (r *ExampleClusterReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	return ctrl.NewControllerManagedBy(mgr).
		For(&infrav1.ExampleCluster{}, builder.WithPredicates(filter)).
		WithOptions(opts).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToExampleCluster),
			builder.WithPredicates(filter, predicates.ClusterUpdateTriggersChildren())).
		Complete(patch.RequeueOnConflict(r))
}

// clusterToExampleCluster maps a Cluster to the ExampleCluster of its infrastructureRef.
func clusterToExampleCluster(_ context.Context, o client.Object) []reconcile.Request {
	c, ok := o.(*clusterv1.Cluster)
	if !ok || c.Spec.InfrastructureRef.APIGroup != infrav1.GroupVersion.Group || c.Spec.InfrastructureRef.Kind != "ExampleCluster" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: c.Namespace, Name: c.Spec.InfrastructureRef.Name}}}
}

// Reconcile provisions an ExampleCluster once its Cluster owns it.
func (r *ExampleClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	ec := &infrav1.ExampleCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, ec); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(ec, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() { retErr = errors.Join(retErr, helper.Patch(ctx, ec)) }()

	// 1. The owner: the core's Cluster controller sets an owner reference to the Cluster.
	cluster := &clusterv1.Cluster{}
	found, err := getOptional(ctx, r.Client, ec.Namespace, ownerNamed(ec, "Cluster"), cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !found {
		cluster = nil
	}
	// 2. Pause: report it, and do nothing else (not even deletion).
	if predicates.SetPausedCondition(ec, cluster) {
		return ctrl.Result{}, nil
	}
	if !ec.DeletionTimestamp.IsZero() {
		// A real provider deletes the load balancer here, then lets go.
		controllerutil.RemoveFinalizer(ec, infrav1.ClusterFinalizer)
		return ctrl.Result{}, nil
	}
	if cluster == nil {
		return ctrl.Result{}, nil // the owner reference's arrival re-triggers us
	}
	// 3. The finalizer, before anything exists that deletion would have to release.
	controllerutil.AddFinalizer(ec, infrav1.ClusterFinalizer)
	// 4. Provision: a real provider creates a load balancer and reports its address.
	if !ec.Spec.ControlPlaneEndpoint.IsValid() {
		ec.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: ec.Name + ".example.invalid", Port: 6443}
	}
	ec.Status.FailureDomains = []clusterv1.FailureDomain{{Name: "zone-a", ControlPlane: ptr.To(true)}}
	// 5. The signal the core waits for.
	ec.Status.Initialization.Provisioned = ptr.To(true)
	return ctrl.Result{}, nil
}
