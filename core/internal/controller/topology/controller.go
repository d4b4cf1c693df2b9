package topology

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/desired"
	"capstan.dev/core/internal/topology/upgrade"
	"capstan.dev/core/internal/topology/variables"
)

// FieldManager owns every field the topology controller applies.
const FieldManager = clusterstate.FieldManager

// The controller writes templates and objects of any provider kind in the provider groups
// (kinds outside these groups are granted through the aggregated manager role).
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;clusters/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinedeployments;machinepools;machinehealthchecks,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinesets;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;controlplane.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// Reconciler reconciles topology Clusters.
type Reconciler struct {
	Client client.Client
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// Random returns the random part of generated names; nil means desired.RandomSuffix.
	Random func() string
	// Runtime calls Runtime Extensions (BeforeClusterCreate, AfterControlPlaneInitialized, the
	// upgrade hooks, BeforeClusterDelete, external patches, GenerateUpgradePlan); nil calls none (a before-upgrade.hook annotation still
	// holds an upgrade), and a deleting Cluster is marked ok-to-delete at once.
	Runtime *runtimeclient.Client
	// Recorder records the holds of Runtime SDK hooks as Events on the Cluster. SetupWithManager
	// fills it from the manager when nil.
	Recorder events.Recorder
	// Now is the clock of hook holds (heldHooks); nil is time.Now.
	Now func() time.Time

	tracker *external.Tracker
	// holds remembers the blocking hooks' answers until their retryAfterSeconds pass.
	holds heldHooks
	// recordedHolds holds, per Cluster name, the hook hold whose Event was recorded, until a
	// reconcile finds the Cluster unheld or gone (recordHookBlocking).
	recordedHolds sync.Map
	// plans caches GenerateUpgradePlan answers (upgradePlanner).
	plans     *cachedPlanner
	plansOnce sync.Once
}

// SetupWithManager registers the controller: Clusters (spec and metadata changes, not status),
// their ClusterClasses, the MachineDeployments, MachinePools (their status too: Node versions
// drive upgrades) and MachineHealthChecks they own, the deletion of
// their MachineSets, their Machines' spec changes and (lazily) their ControlPlanes.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		return fmt.Errorf("topology reconciler needs Client")
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	changed := predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{},
		deletionStarted, controlPlaneInitializedChanged)
	toCluster := handler.EnqueueRequestsFromMapFunc(ownedToCluster)
	c, err := ctrl.NewControllerManagedBy(mgr).
		Named("topology").
		For(&clusterv1.Cluster{}, builder.WithPredicates(filter, changed)).
		Watches(&clusterv1.ClusterClass{}, handler.EnqueueRequestsFromMapFunc(r.clusterClassToClusters)).
		Watches(&clusterv1.MachineDeployment{}, toCluster, builder.WithPredicates(filter)).
		Watches(&clusterv1.MachinePool{}, toCluster, builder.WithPredicates(filter)).
		Watches(&clusterv1.MachineHealthCheck{}, toCluster, builder.WithPredicates(filter)).
		// A deleted MachineSet may have been the last user of a replaced template copy.
		Watches(&clusterv1.MachineSet{}, toCluster, builder.WithPredicates(filter, deletedOnly)).
		// A Machine reaching its MachineDeployment's version may release the next upgrade step.
		Watches(&clusterv1.Machine{}, toCluster, builder.WithPredicates(filter, predicate.GenerationChangedPredicate{})).
		WithOptions(opts).
		Build(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the topology controller: %w", err)
	}
	// The control plane's kind is a provider's: watched once its first object is read.
	r.tracker = &external.Tracker{Controller: c, Cache: mgr.GetCache(), Handler: toCluster}
	return nil
}

// watch makes sure obj's kind is watched (no-op without a tracker, e.g. in unit tests).
func (r *Reconciler) watch(ctx context.Context, obj *unstructured.Unstructured) error {
	if r.tracker == nil {
		return nil
	}
	return r.tracker.Watch(ctrl.LoggerFrom(ctx), obj)
}

// deletedOnly passes delete events only.
var deletedOnly = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// ownedToCluster maps an object the topology generated to its Cluster.
func ownedToCluster(_ context.Context, o client.Object) []reconcile.Request {
	l := o.GetLabels()
	if _, owned := l[clusterv1.ClusterTopologyOwnedLabel]; !owned || l[clusterv1.ClusterNameLabel] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: l[clusterv1.ClusterNameLabel]}}}
}

// clusterClassToClusters requests the topology Clusters using a ClusterClass.
func (r *Reconciler) clusterClassToClusters(ctx context.Context, o client.Object) []reconcile.Request {
	clusters := &clusterv1.ClusterList{}
	if err := r.Client.List(ctx, clusters); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing Clusters to map a ClusterClass event")
		return nil
	}
	var out []reconcile.Request
	for i := range clusters.Items {
		c := &clusters.Items[i]
		if c.Spec.Topology.IsDefined() && classKey(c) == client.ObjectKeyFromObject(o) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(c)})
		}
	}
	return out
}

// classKey is where a topology Cluster's ClusterClass lives.
var classKey = clusterstate.ClassKey

// Reconcile is the controller's entry point. A paused Cluster is left alone (nothing written);
// a deleting one only gets its BeforeClusterDelete answer (hooks_delete.go): its generated objects
// go through the Cluster controller and their owner references.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	c := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, c); err != nil {
		if apierrors.IsNotFound(err) {
			r.recordedHolds.Delete(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !c.Spec.Topology.IsDefined() || predicates.IsPaused(c, c) {
		return ctrl.Result{}, nil
	}
	if r.Runtime != nil && !r.Runtime.Registry.Ready() {
		// Until the registry holds the extensions discovered before this manager started, "no
		// handler" would skip a hook an extension serves (and let a held deletion go on).
		ctrl.LoggerFrom(ctx).V(4).Info("Waiting for the Runtime Extension registry to warm up")
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	if !c.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, c)
	}
	hookErr := r.trackAfterControlPlaneInitialized(ctx, c)
	helper, err := patch.NewHelper(c, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: c, helper: helper}
	defer func() {
		setStatus(s, retErr)
		r.endHold(s)
		if err := s.helper.Patch(ctx, c); err != nil && !apierrors.IsNotFound(err) && retErr == nil {
			retErr = fmt.Errorf("patching Cluster %s: %w", c.Name, err)
		}
	}()
	if hookErr != nil {
		return ctrl.Result{}, hookErr
	}
	return r.reconcileNormal(ctx, s)
}

// scope holds what one reconcile read and decided.
type scope struct {
	cluster *clusterv1.Cluster
	// helper writes the Cluster at the end of the reconcile; taken anew after a write made
	// earlier (the pending-hooks annotation), so that write does not make it conflict.
	helper      *patch.Helper
	class       *clusterv1.ClusterClass
	definitions map[string]variables.Definition
	// blocked, when set, is why the topology cannot be reconciled yet (False, with this reason).
	blocked *blockedReason
	// templates are the class's templates; current what the Cluster has now.
	templates desired.Templates
	current   *clusterstate.Current
	// upgrade is the version plan: what each object runs and what is pending.
	upgrade *upgrade.Plan
	// upgradeInput is what upgrade was computed from, recomputed with the lifecycle hooks' holds.
	upgradeInput upgrade.Input
	// requeueAfter is when a blocking lifecycle hook asked to be called again (0: not asked).
	requeueAfter time.Duration
	// applied is set once the desired state was applied without error.
	applied bool
	// hookHeld is set when a lifecycle hook holds the Cluster in this reconcile.
	hookHeld bool
}

type blockedReason struct{ reason, message string }
