package machineset

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	"capstan.dev/core/internal/machineindex"
)

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinesets,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinesets/status,verbs=patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinesets/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines/status,verbs=patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinedeployments,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=*,verbs=get;list;watch

// Reconciler reconciles MachineSets.
type Reconciler struct {
	// Client is the manager's (cached) client.
	Client client.Client
	// APIReader reads from the API server directly. Scaling decisions and the last check before
	// the finalizer is removed use it, so that they never act on a cache that has not yet seen
	// this controller's own writes. SetupWithManager fills it from the manager when nil.
	APIReader client.Reader
	// WatchFilterValue limits reconciliation to objects labelled with it (--watch-filter).
	WatchFilterValue string

	// summaries spaces status writes that only move counters (patch.SummaryLimiter).
	summaries patch.SummaryLimiter
	// PreflightChecks are the checks run before Machines are created or remediated
	// (--machineset-preflight-checks, see ParsePreflightChecks); none when empty.
	PreflightChecks sets.Set[clusterv1.MachineSetPreflightCheck]
	// Recorder records the Machines created and deleted as Events on the MachineSet.
	// SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder
}

// SetupWithManager registers the controller and its watches: MachineSets, their Machines (and
// orphan Machines they could adopt), the owning MachineDeployments (whose revision and
// remediation settings change what a MachineSet does) and Clusters (pause, deletion).
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		return errors.New("machineset reconciler needs a Client")
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	if err := machineindex.Add(ctx, mgr); err != nil {
		return err
	}
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	err := ctrl.NewControllerManagedBy(mgr).
		For(&clusterv1.MachineSet{}, builder.WithPredicates(filter, predicates.IgnoreOwnStatusWrites())).
		Named("machineset").
		WithOptions(opts).
		// Machine events are batched (mapping.DefaultStatusBatchWindow): a MachineSet summarises
		// its Machines, and one reconcile per window replaces one per Machine event.
		Watches(&clusterv1.Machine{}, mapping.EnqueueRequestsFromMapFuncBatched(r.machineToMachineSets, mapping.DefaultStatusBatchWindow)).
		// Only a MachineDeployment's spec (maxInFlight, replicas) and annotations (revision)
		// matter here, not its status.
		Watches(&clusterv1.MachineDeployment{}, handler.EnqueueRequestsFromMapFunc(r.machineDeploymentToMachineSets),
			builder.WithPredicates(filter, predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToMachineSets),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), filter)).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the machineset controller: %w", err)
	}
	return nil
}

// scope holds what one reconcile read and decided, for the status computation.
type scope struct {
	ms      *clusterv1.MachineSet
	cluster *clusterv1.Cluster
	// deployment is the MachineDeployment that controls ms; nil for a standalone MachineSet or
	// while the owner cannot be found.
	deployment *clusterv1.MachineDeployment
	selector   labels.Selector

	// machines are the Machines ms owns after adoption and release, sorted by name; machinesRead
	// says whether they could be listed at all (status counts are kept as they are otherwise).
	machines     []*clusterv1.Machine
	machinesRead bool

	// scaleUpBlocked says why missing Machines are not being created, for the ScalingUp message.
	scaleUpBlocked string
	// invalidSelector says why spec.selector cannot be used (see InvalidSelectorMessage); while it is
	// set the MachineSet neither lists, adopts, releases, creates nor deletes Machines.
	invalidSelector string
	// deferredRemediations counts unhealthy Machines waiting for maxInFlight.
	deferredRemediations int
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	ms := &clusterv1.MachineSet{}
	if err := r.Client.Get(ctx, req.NamespacedName, ms); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("reading MachineSet %s: %w", req.NamespacedName, err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", klog.KRef(ms.Namespace, ms.Spec.ClusterName))
	ctx = ctrl.LoggerInto(ctx, log)

	cluster, err := r.getCluster(ctx, ms)
	if err != nil {
		return ctrl.Result{}, err
	}

	helper, err := patch.NewHelper(ms, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if predicates.SetPausedCondition(ms, cluster) {
		log.V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, helper.Patch(ctx, ms)
	}
	if ms.DeletionTimestamp.IsZero() && !controllerutil.ContainsFinalizer(ms, clusterv1.MachineSetFinalizer) {
		// Written on its own and first, so that no Machine exists before the MachineSet can
		// clean it up; the update event brings the next reconcile.
		controllerutil.AddFinalizer(ms, clusterv1.MachineSetFinalizer)
		return ctrl.Result{}, helper.Patch(ctx, ms)
	}

	s := &scope{ms: ms, cluster: cluster}
	orig := ms.Status.DeepCopy()
	defer func() {
		setStatus(s, retErr == nil)
		res = r.holdCounterOnlyStatus(ms, orig, res)
		if err := helper.Patch(ctx, ms); err != nil && !(apierrors.IsNotFound(err) && !ms.DeletionTimestamp.IsZero()) {
			retErr = errors.Join(retErr, err) // a deleted MachineSet whose finalizer just went has nothing left to patch
		}
	}()

	if !ms.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if cluster == nil {
		log.Info("Waiting for the Cluster to exist")
		return ctrl.Result{}, nil // the Cluster watch brings us back
	}
	return r.reconcileNormal(ctx, s)
}

// getCluster returns the MachineSet's Cluster, or nil when it does not exist.
func (r *Reconciler) getCluster(ctx context.Context, ms *clusterv1.MachineSet) (*clusterv1.Cluster, error) {
	cluster := &clusterv1.Cluster{}
	key := client.ObjectKey{Namespace: ms.Namespace, Name: ms.Spec.ClusterName}
	if err := r.Client.Get(ctx, key, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Cluster %s: %w", key, err)
	}
	return cluster, nil
}

// holdCounterOnlyStatus holds back a status write that only moves counters or messages while
// the MachineSet's last status write is more recent than the limiter's spacing (10 s, growing
// to 60 s while only counters move), and asks to come back when it may be written
// (patch.SummaryLimiter).
func (r *Reconciler) holdCounterOnlyStatus(ms *clusterv1.MachineSet, orig *clusterv1.MachineSetStatus, res ctrl.Result) ctrl.Result {
	changed := !equality.Semantic.DeepEqual(*orig, ms.Status)
	return r.summaries.Apply(ms.UID, changed, orig.Conditions, ms.Status.Conditions, orig.ObservedGeneration, ms.Status.ObservedGeneration,
		func() { ms.Status = *orig }, res)
}
