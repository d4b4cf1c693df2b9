package cluster

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	"capstan.dev/contracts/remote"
)

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;clusters/status;clusters/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;machinesets;machinedeployments;machinepools,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;controlplane.cluster.x-k8s.io,resources=*,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch

// Reconciler reconciles Clusters.
type Reconciler struct {
	Client client.Client
	// APIReader reads Secrets live (they are never cached).
	APIReader client.Reader
	// Health reports the workload-cluster connection (contracts/remote.ClusterCache).
	Health WorkloadHealth
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string

	tracker *external.Tracker
	// summaries spaces status writes that only move counters (patch.SummaryLimiter).
	summaries patch.SummaryLimiter
}

// WorkloadHealth is what the Cluster controller uses of the ClusterCache.
type WorkloadHealth interface {
	GetHealthCheckingState(cluster client.ObjectKey) remote.HealthCheckingState
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}

// SetupWithManager registers the controller and its watches.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Health == nil {
		return fmt.Errorf("cluster reconciler needs Client, APIReader and Health")
	}
	log := mgr.GetLogger().WithName("cluster")
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&clusterv1.Cluster{}, builder.WithPredicates(filter, predicates.IgnoreOwnStatusWrites())).
		WithOptions(opts).
		// Descendant events are batched (mapping.DefaultStatusBatchWindow): the Cluster only
		// summarises them, and each of its reconciles reads all of them.
		Watches(&clusterv1.Machine{}, mapping.EnqueueRequestsFromMapFuncBatched(toCluster, mapping.DefaultStatusBatchWindow), builder.WithPredicates(filter)).
		Watches(&clusterv1.MachineSet{}, mapping.EnqueueRequestsFromMapFuncBatched(toCluster, mapping.DefaultStatusBatchWindow), builder.WithPredicates(filter)).
		Watches(&clusterv1.MachineDeployment{}, mapping.EnqueueRequestsFromMapFuncBatched(toCluster, mapping.DefaultStatusBatchWindow), builder.WithPredicates(filter)).
		Watches(&clusterv1.MachinePool{}, mapping.EnqueueRequestsFromMapFuncBatched(toCluster, mapping.DefaultStatusBatchWindow), builder.WithPredicates(filter)).
		WatchesRawSource(r.Health.GetClusterSource("cluster", func(_ context.Context, key client.ObjectKey) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: key}}
		}, remote.WatchForProbeFailure(remoteProbeFailureGrace))).
		Build(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the cluster controller: %w", err)
	}
	r.tracker = &external.Tracker{
		Controller: c,
		Cache:      mgr.GetCache(),
		Handler:    handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &clusterv1.Cluster{}),
		Predicates: []predicate.Predicate{predicates.ResourceNotPaused(log)},
	}
	return nil
}

// toCluster maps any object labelled with a Cluster name to that Cluster.
func toCluster(_ context.Context, o client.Object) []reconcile.Request {
	name, ok := o.GetLabels()[clusterv1.ClusterNameLabel]
	if !ok {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: name}}}
}

// scope holds what one reconcile read.
type scope struct {
	cluster *clusterv1.Cluster

	infra         *unstructured.Unstructured
	infraContract contract.Version
	infraNotFound bool
	infraErr      error

	controlPlane         *unstructured.Unstructured
	controlPlaneContract contract.Version
	controlPlaneNotFound bool
	controlPlaneErr      error

	descendants descendants
	// listedDescendants is set once descendants were listed in this reconcile.
	listedDescendants bool

	kubeconfigErr error
	deleting      deletingStatus
	// availabilityGates are the conditions beside Cluster API's that Available requires.
	availabilityGates []clusterv1.ClusterAvailabilityGate
}

type deletingStatus struct{ reason, message string }

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(cluster, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: cluster}
	orig := cluster.Status.DeepCopy()
	defer func() {
		r.setStatus(s)
		res = r.holdCounterOnlyStatus(cluster, orig, res)
		if err := helper.Patch(ctx, cluster); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if predicates.SetPausedCondition(cluster, cluster) {
		return ctrl.Result{}, nil
	}
	if !cluster.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if controllerutil.AddFinalizer(cluster, clusterv1.ClusterFinalizer) {
		return ctrl.Result{}, nil
	}
	return r.reconcileNormal(ctx, s)
}
