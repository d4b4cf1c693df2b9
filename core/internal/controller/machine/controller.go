package machine

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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	"capstan.dev/contracts/remote"
)

// DefaultRemoteConditionsGracePeriod is upstream's default for
// --remote-conditions-grace-period.
const DefaultRemoteConditionsGracePeriod = 5 * time.Minute

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;machines/status;machines/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinesets;machinedeployments,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinedrainrules,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=*,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconciler reconciles Machines.
type Reconciler struct {
	Client client.Client
	// Workload gives access to workload clusters (contracts/remote.ClusterCache).
	Workload WorkloadClusters
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// DrainRequeue is how long to wait between drain passes (20s when zero).
	DrainRequeue time.Duration
	// RemoteConditionsGracePeriod is how long the Node-derived conditions keep their
	// last observed value while the workload cluster cannot be reached, counted from
	// the last successful probe (DefaultRemoteConditionsGracePeriod when zero).
	RemoteConditionsGracePeriod time.Duration
	// AdditionalSync selects further Machine labels and annotations to put on the Node
	// (--additional-sync-machine-labels, --additional-sync-machine-annotations).
	AdditionalSync SyncPatterns
	// Recorder records the drain's start and outcome as Events on the Machine.
	// SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder

	tracker    *external.Tracker
	controller controller.Controller
}

// SetupWithManager registers the controller, its field index and its watches.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.Workload == nil {
		return fmt.Errorf("machine reconciler needs Client and Workload")
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	if err := AddProviderIDIndex(ctx, mgr); err != nil {
		return err
	}
	log := mgr.GetLogger().WithName("machine")
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&clusterv1.Machine{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WithOptions(opts).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(mapping.ClusterObjectToObjects(r.Client, newMachineList)),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WatchesRawSource(r.Workload.GetClusterSource("machine", mapping.ClusterToObjects(r.Client, newMachineList))).
		Build(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the machine controller: %w", err)
	}
	r.controller = c
	r.tracker = &external.Tracker{
		Controller: c,
		Cache:      mgr.GetCache(),
		Handler:    handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &clusterv1.Machine{}, handler.OnlyControllerOwner()),
		Predicates: []predicate.Predicate{predicates.ResourceNotPaused(log)},
	}
	return nil
}

// scope holds what one reconcile read.
type scope struct {
	cluster *clusterv1.Cluster
	machine *clusterv1.Machine

	bootstrapConfig   *unstructured.Unstructured
	bootstrapContract contract.Version
	bootstrapNotFound bool
	bootstrapErr      error // the config could not be read or is malformed
	infraMachine      *unstructured.Unstructured
	infraContract     contract.Version
	infraNotFound     bool
	infraErr          error

	// node is the Machine's Node; nodeErr says why it could not be read.
	node     *corev1.Node
	nodeErr  error
	nodeGone bool // nodeRef set but the Node no longer exists
	// connection is the workload cluster's health, read when the Node could not
	// be because the cluster is not connected.
	connection remote.HealthCheckingState
	// gracePeriod is Reconciler.RemoteConditionsGracePeriod, defaulted.
	gracePeriod time.Duration

	deleting deletingStatus

	// hadFinalizer says the Machine was read with its finalizer (its creator set it).
	hadFinalizer bool
	// waitingForCreator is set while the creator of a new Machine is still creating the
	// objects it references: the reconcile writes nothing (see waitForCreator).
	waitingForCreator bool
}

// deletingStatus is what the Deleting condition reports.
type deletingStatus struct {
	reason, message string
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	m := &clusterv1.Machine{}
	if err := r.Client.Get(ctx, req.NamespacedName, m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", m.Spec.ClusterName)
	ctx = ctrl.LoggerInto(ctx, log)

	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.ClusterName}, cluster); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("reading Cluster %s: %w", m.Spec.ClusterName, err)
		}
		if m.DeletionTimestamp.IsZero() {
			log.Info("Waiting for the Cluster to exist")
			return ctrl.Result{}, nil // the Cluster watch brings us back
		}
		cluster = nil // deleting a Machine whose Cluster is gone: clean up what is left
	}

	helper, err := patch.NewHelper(m, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: cluster, machine: m, gracePeriod: r.remoteConditionsGracePeriod()}
	defer func() {
		if s.waitingForCreator {
			return
		}
		setStatus(s, time.Now())
		if err := patchError(m, helper.Patch(ctx, m)); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if predicates.SetPausedCondition(m, cluster) {
		log.V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, nil
	}
	if !m.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	// A MachineSet creates its Machines with the finalizer. Otherwise it is written by the
	// deferred patch together with this first pass's status, rather than alone with a second
	// reconcile to follow: one status write per Machine less (make bench). Nothing this pass
	// does needs the finalizer first: it only adopts the bootstrap config and infrastructure
	// machine, which then go with the Machine through their owner reference even if it were
	// deleted before the patch lands.
	s.hadFinalizer = !controllerutil.AddFinalizer(m, clusterv1.MachineFinalizer)
	return r.reconcileNormal(ctx, s)
}

// patchError is the error of the reconcile's final patch of m, if it matters. A deleting Machine
// that is gone needs no status: a pass that ran on a cache which had not yet seen the finalizer's
// removal (about one deletion in five during a rollout of many Machines, make bench) ends there,
// not in an error, its log line and a requeue with backoff.
func patchError(m *clusterv1.Machine, err error) error {
	if apierrors.IsNotFound(err) && !m.DeletionTimestamp.IsZero() {
		return nil
	}
	return err
}

func (r *Reconciler) remoteConditionsGracePeriod() time.Duration {
	if r.RemoteConditionsGracePeriod > 0 {
		return r.RemoteConditionsGracePeriod
	}
	return DefaultRemoteConditionsGracePeriod
}

func newMachineList() client.ObjectList { return &clusterv1.MachineList{} }
