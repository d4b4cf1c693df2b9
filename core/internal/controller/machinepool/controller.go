package machinepool

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools;machinepools/status;machinepools/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// conflictRequeue is how soon a reconcile whose write lost a race is retried.
const conflictRequeue = time.Second

// Reconciler reconciles MachinePools.
type Reconciler struct {
	Client client.Client
	// Workload gives access to workload clusters (contracts/remote.ClusterCache).
	Workload WorkloadClusters
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string

	tracker    *external.Tracker
	controller controller.Controller
}

// SetupWithManager registers the controller and its watches: MachinePools, their
// Clusters, the ClusterCache's connection events, lazily the kinds of the pools'
// bootstrap configs and InfraMachinePools, and, once connected, workload Nodes.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.Workload == nil {
		return fmt.Errorf("machinepool reconciler needs Client and Workload")
	}
	log := mgr.GetLogger().WithName("machinepool")
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&clusterv1.MachinePool{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WithOptions(opts).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToMachinePools),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WatchesRawSource(r.Workload.GetClusterSource("machinepool", r.clusterKeyToMachinePools)).
		Build(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the machinepool controller: %w", err)
	}
	r.controller = c
	r.tracker = &external.Tracker{
		Controller: c,
		Cache:      mgr.GetCache(),
		Handler:    handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &clusterv1.MachinePool{}, handler.OnlyControllerOwner()),
		Predicates: []predicate.Predicate{predicates.ResourceNotPaused(log)},
	}
	return nil
}

// scope holds what one reconcile read.
type scope struct {
	cluster *clusterv1.Cluster
	pool    *clusterv1.MachinePool

	bootstrapConfig   *unstructured.Unstructured
	bootstrapNotFound bool
	bootstrapErr      error // the config could not be read or is malformed
	infraPool         *unstructured.Unstructured
	infraVersion      contract.Version
	infraNotFound     bool
	infraErr          error
	// providerIDListRead says the InfraMachinePool reported spec.providerIDList in this
	// reconcile: only then may Nodes whose providerID left it be deleted.
	providerIDListRead bool

	// nodeErr says why the pool's Nodes could not be read; status.nodeRefs and the
	// counts then keep their last values.
	nodeErr error

	// paused: reconciliation is paused, the status keeps what it said.
	paused bool

	deleting deletingStatus
}

// deletingStatus is what the Deleting condition reports.
type deletingStatus struct {
	reason, message string
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	mp := &clusterv1.MachinePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, mp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", mp.Spec.ClusterName)
	ctx = ctrl.LoggerInto(ctx, log)

	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: mp.Namespace, Name: mp.Spec.ClusterName}, cluster); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("reading Cluster %s: %w", mp.Spec.ClusterName, err)
		}
		if mp.DeletionTimestamp.IsZero() {
			log.Info("Waiting for the Cluster to exist")
			return ctrl.Result{}, nil // the Cluster watch brings us back
		}
		cluster = nil // deleting a pool whose Cluster is gone: clean up what is left
	}

	helper, err := patch.NewHelper(mp, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: cluster, pool: mp}
	defer func() {
		setStatus(s)
		err := helper.Patch(ctx, mp)
		switch {
		case err == nil:
		case apierrors.IsNotFound(err) && !mp.DeletionTimestamp.IsZero():
			// A stale read of a pool whose finalizer was already removed: it is gone.
		case apierrors.IsConflict(err) && retErr == nil:
			// The read was stale; the event of the newer version brings us back anyway.
			log.V(4).Info("Write lost a race, retrying", "reason", err.Error())
			res = lowestRequeue(res, ctrl.Result{RequeueAfter: conflictRequeue})
		default:
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if predicates.SetPausedCondition(mp, cluster) {
		s.paused = true
		log.V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, nil
	}
	if !mp.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if controllerutil.AddFinalizer(mp, clusterv1.MachinePoolFinalizer) {
		return ctrl.Result{}, nil // written by the deferred patch; the update brings us back
	}
	return r.reconcileNormal(ctx, s)
}

// clusterToMachinePools enqueues every MachinePool of a Cluster.
func (r *Reconciler) clusterToMachinePools(ctx context.Context, o client.Object) []reconcile.Request {
	return r.clusterKeyToMachinePools(ctx, client.ObjectKeyFromObject(o))
}

func (r *Reconciler) clusterKeyToMachinePools(ctx context.Context, cluster client.ObjectKey) []reconcile.Request {
	pools := r.machinePoolsOf(ctx, cluster)
	out := make([]reconcile.Request, 0, len(pools))
	for _, mp := range pools {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(mp)})
	}
	return out
}

// nodeToMachinePools maps a workload Node of a Cluster to the pools that list its
// providerID or recorded it, so a pool hears of its Nodes coming, changing and going.
func (r *Reconciler) nodeToMachinePools(ctx context.Context, cluster client.ObjectKey, o client.Object) []reconcile.Request {
	node, ok := o.(*corev1.Node)
	if !ok {
		return nil
	}
	var out []reconcile.Request
	for _, mp := range r.machinePoolsOf(ctx, cluster) {
		if poolHasNode(mp, node) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(mp)})
		}
	}
	return out
}

func poolHasNode(mp *clusterv1.MachinePool, node *corev1.Node) bool {
	for _, ref := range mp.Status.NodeRefs {
		if ref.Name == node.Name {
			return true
		}
	}
	if node.Spec.ProviderID == "" {
		return false
	}
	for _, id := range mp.Spec.ProviderIDList {
		if id == node.Spec.ProviderID {
			return true
		}
	}
	return false
}

// machinePoolsOf lists the MachinePools of a Cluster, by spec.clusterName (a new pool
// carries no cluster-name label until its first reconcile).
func (r *Reconciler) machinePoolsOf(ctx context.Context, cluster client.ObjectKey) []*clusterv1.MachinePool {
	list := &clusterv1.MachinePoolList{}
	if err := r.Client.List(ctx, list, client.InNamespace(cluster.Namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachinePools", "Cluster", cluster)
		return nil
	}
	var out []*clusterv1.MachinePool
	for i := range list.Items {
		if list.Items[i].Spec.ClusterName == cluster.Name {
			out = append(out, &list.Items[i])
		}
	}
	return out
}
