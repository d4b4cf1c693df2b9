package clusterresourceset

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/metadata"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// +kubebuilder:rbac:groups=addons.cluster.x-k8s.io,resources=clusterresourcesets;clusterresourcesets/status,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=addons.cluster.x-k8s.io,resources=clusterresourcesets/finalizers,verbs=update
// +kubebuilder:rbac:groups=addons.cluster.x-k8s.io,resources=clusterresourcesetbindings,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=secrets;configmaps,verbs=get;list;watch;patch

// Reconciler reconciles ClusterResourceSets.
type Reconciler struct {
	Client client.Client
	// APIReader reads the named Secrets and ConfigMaps live: the manager caches neither.
	APIReader client.Reader
	// Workload gives access to workload clusters (contracts/remote.ClusterCache).
	Workload WorkloadClusters
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// Recorder records what was applied to which Cluster, and failures, as Events.
	// SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder

	// secretEvents informs on resource-set Secrets' metadata; configMapEvents watches each
	// ConfigMap a ClusterResourceSet names. Between them they tell a reconcile to run when a
	// named resource appears, changes or goes, and hold nothing of any other Secret or ConfigMap.
	secretEvents    cache.Cache
	configMapEvents *namedConfigMapWatches
}

// SetupWithManager registers the controller and its watches: ClusterResourceSets, Clusters
// (labels, pause, control plane initialized), workload connections, deleted bindings, the
// metadata of resource-set Secrets and of the ConfigMaps ClusterResourceSets name.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Workload == nil {
		return fmt.Errorf("clusterresourceset reconciler needs Client, APIReader and Workload")
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	var err error
	if r.secretEvents, err = newSecretMetadataCache(mgr); err != nil {
		return err
	}
	metadataClient, err := metadata.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return fmt.Errorf("creating the ConfigMap metadata client: %w", err)
	}
	r.configMapEvents = &namedConfigMapWatches{client: metadataClient, toRequests: r.resourceToClusterResourceSets}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&addonsv1.ClusterResourceSet{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WithOptions(opts).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToClusterResourceSets),
			builder.WithPredicates(clusterChanges(), predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		Watches(&addonsv1.ClusterResourceSetBinding{}, handler.EnqueueRequestsFromMapFunc(bindingToClusterResourceSets),
			builder.WithPredicates(onlyDeletes())).
		WatchesRawSource(r.Workload.GetClusterSource("clusterresourceset", r.clusterKeyToClusterResourceSets)).
		WatchesRawSource(secretSource(r.secretEvents, r.resourceToClusterResourceSets)).
		WatchesRawSource(r.configMapEvents).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the clusterresourceset controller: %w", err)
	}
	return nil
}

// scope holds what one reconcile read and found.
type scope struct {
	crs *addonsv1.ClusterResourceSet
	// evaluated is set once the reconcile looked at the resources and Clusters, so the status
	// reports what it found; before that (paused, deleting) ResourcesApplied is left as it was.
	evaluated bool
	// resources are spec.resources as read: manifests is nil for one that cannot be applied.
	resources []resource
	// problems say why something is not applied, in the order found.
	problems []problem
	// pausedClusters are matching Clusters that were skipped because they are paused.
	pausedClusters []string
	// conflicted is set when a write lost an optimistic-lock race: the reconcile runs again at
	// once on fresh objects, and the condition is left to that run instead of flapping.
	conflicted bool
}

// resource is one entry of spec.resources and what it holds.
type resource struct {
	ref       addonsv1.ResourceRef
	manifests *manifests
}

// problem is one reason why ResourcesApplied is not True.
type problem struct {
	reason, message string
}

func (s *scope) report(reason, message string) {
	s.problems = append(s.problems, problem{reason: reason, message: message})
}

// reportError reports err as an InternalError, or notes a conflict.
func (s *scope) reportError(err error) {
	if apierrors.IsConflict(err) {
		s.conflicted = true
		return
	}
	s.report(addonsv1.ClusterResourceSetResourcesAppliedInternalErrorReason, err.Error())
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	if err := r.watchNamedConfigMaps(ctx); err != nil {
		return ctrl.Result{}, err
	}
	crs := &addonsv1.ClusterResourceSet{}
	if err := r.Client.Get(ctx, req.NamespacedName, crs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(crs, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{crs: crs}
	defer func() {
		setStatus(s)
		if err := helper.Patch(ctx, crs); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if predicates.SetPausedCondition(crs, nil) {
		ctrl.LoggerFrom(ctx).V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, nil
	}
	if !crs.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, s)
	}
	if controllerutil.AddFinalizer(crs, addonsv1.ClusterResourceSetFinalizer) {
		// Stored before anything is applied, so no binding is ever written for a
		// ClusterResourceSet that could go without cleaning it up.
		if err := helper.Patch(ctx, crs); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.reconcileNormal(ctx, s)
}

// watchNamedConfigMaps makes the ConfigMap watches follow what the ClusterResourceSets name now:
// every reconcile calls it, including the one of a deleted ClusterResourceSet.
func (r *Reconciler) watchNamedConfigMaps(ctx context.Context) error {
	list := &addonsv1.ClusterResourceSetList{}
	if err := r.Client.List(ctx, list); err != nil {
		return fmt.Errorf("listing ClusterResourceSets: %w", err)
	}
	return r.configMapEvents.sync(namedConfigMaps(list))
}
