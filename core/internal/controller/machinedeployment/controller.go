package machinedeployment

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	"capstan.dev/core/internal/machineindex"
)

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinedeployments,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinedeployments/status,verbs=patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinedeployments/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinesets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// Reconciler reconciles MachineDeployments.
type Reconciler struct {
	// Client is the manager's (cached) client.
	Client client.Client
	// APIReader reads from the API server directly: before creating a MachineSet the cache has
	// not shown, and before removing the finalizer. SetupWithManager fills it from the manager
	// when nil.
	APIReader client.Reader
	// WatchFilterValue limits reconciliation to objects labelled with it (--watch-filter).
	WatchFilterValue string
	// Recorder records the MachineSets created, scaled and deleted as Events on the
	// MachineDeployment. SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder

	// summaries spaces status writes that only move counters (patch.SummaryLimiter).
	summaries patch.SummaryLimiter
}

// SetupWithManager registers the controller and its watches: MachineDeployments, their
// MachineSets (and orphan MachineSets they could adopt), the Machines of those MachineSets (their
// availability paces a rolling update) and Clusters (pause, deletion).
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		return errors.New("machinedeployment reconciler needs a Client")
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
		For(&clusterv1.MachineDeployment{}, builder.WithPredicates(filter, predicates.IgnoreOwnStatusWrites())).
		Named("machinedeployment").
		WithOptions(opts).
		// MachineSet and Machine events are batched (mapping.DefaultStatusBatchWindow): the
		// MachineDeployment summarises them, and one reconcile per window replaces one per event.
		Watches(&clusterv1.MachineSet{}, mapping.EnqueueRequestsFromMapFuncBatched(r.machineSetToMachineDeployments, mapping.DefaultStatusBatchWindow)).
		Watches(&clusterv1.Machine{}, mapping.EnqueueRequestsFromMapFuncBatched(r.machineToMachineDeployment, mapping.DefaultStatusBatchWindow)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToMachineDeployments),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), filter)).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the machinedeployment controller: %w", err)
	}
	return nil
}

// scope holds what one reconcile read and decided, for the status computation.
type scope struct {
	md      *clusterv1.MachineDeployment
	cluster *clusterv1.Cluster
	now     time.Time

	selector labels.Selector
	// invalidSelector says why spec.selector cannot be used (machineset.InvalidSelectorMessage);
	// while it is set nothing is listed, adopted, created or scaled.
	invalidSelector string
	// machineSets are the MachineSets md controls (after adoption and release), oldest revision
	// first; newMS is the one matching the current template (nil until created) and oldMSs the
	// others, in the same order.
	machineSets []*clusterv1.MachineSet
	newMS       *clusterv1.MachineSet
	oldMSs      []*clusterv1.MachineSet
	// machines are the Machines of each MachineSet, by MachineSet UID.
	machines map[types.UID][]*clusterv1.Machine
	read     bool

	// rolloutBlocked says why the rollout cannot progress, for the RollingOut message.
	rolloutBlocked string
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	md := &clusterv1.MachineDeployment{}
	if err := r.Client.Get(ctx, req.NamespacedName, md); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("reading MachineDeployment %s: %w", req.NamespacedName, err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", klog.KRef(md.Namespace, md.Spec.ClusterName))
	ctx = ctrl.LoggerInto(ctx, log)

	cluster, err := r.getCluster(ctx, md)
	if err != nil {
		return ctrl.Result{}, err
	}
	helper, err := patch.NewHelper(md, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if predicates.SetPausedCondition(md, cluster) {
		log.V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, helper.Patch(ctx, md)
	}
	if md.DeletionTimestamp.IsZero() && !controllerutil.ContainsFinalizer(md, clusterv1.MachineDeploymentFinalizer) {
		// Written on its own and first, so that no MachineSet exists before the
		// MachineDeployment can clean it up; the update event brings the next reconcile.
		controllerutil.AddFinalizer(md, clusterv1.MachineDeploymentFinalizer)
		return ctrl.Result{}, helper.Patch(ctx, md)
	}

	s := &scope{md: md, cluster: cluster, now: time.Now()}
	orig := md.Status.DeepCopy()
	defer func() {
		setStatus(s, retErr == nil)
		res = r.holdCounterOnlyStatus(md, orig, res)
		if err := helper.Patch(ctx, md); err != nil && !(apierrors.IsNotFound(err) && !md.DeletionTimestamp.IsZero()) {
			retErr = errors.Join(retErr, err) // a deleted MachineDeployment whose finalizer just went has nothing left to patch
		}
	}()

	if !md.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if cluster == nil {
		log.Info("Waiting for the Cluster to exist")
		return ctrl.Result{}, nil // the Cluster watch brings us back
	}
	return r.reconcileNormal(ctx, s)
}

// getCluster returns the MachineDeployment's Cluster, or nil when it does not exist.
func (r *Reconciler) getCluster(ctx context.Context, md *clusterv1.MachineDeployment) (*clusterv1.Cluster, error) {
	cluster := &clusterv1.Cluster{}
	key := client.ObjectKey{Namespace: md.Namespace, Name: md.Spec.ClusterName}
	if err := r.Client.Get(ctx, key, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Cluster %s: %w", key, err)
	}
	return cluster, nil
}

// holdCounterOnlyStatus holds back a status write that only moves counters or messages while
// the MachineDeployment's last status write is more recent than the limiter's spacing (10 s, growing
// to 60 s while only counters move), and asks to come back when it may be written
// (patch.SummaryLimiter).
func (r *Reconciler) holdCounterOnlyStatus(md *clusterv1.MachineDeployment, orig *clusterv1.MachineDeploymentStatus, res ctrl.Result) ctrl.Result {
	changed := !equality.Semantic.DeepEqual(*orig, md.Status)
	return r.summaries.Apply(md.UID, changed, orig.Conditions, md.Status.Conditions, orig.ObservedGeneration, md.Status.ObservedGeneration,
		func() { md.Status = *orig }, res)
}
