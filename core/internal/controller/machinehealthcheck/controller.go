package machinehealthcheck

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinehealthchecks;machinehealthchecks/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines/status,verbs=patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// External remediation templates and requests in the infrastructure group, as upstream; other
// groups are granted by a ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager: "true".
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=*,verbs=get;list;watch;create;delete

// Reconciler reconciles MachineHealthChecks.
type Reconciler struct {
	Client client.Client
	// Workload gives access to workload clusters (contracts/remote.ClusterCache).
	Workload WorkloadClusters
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// Recorder records remediation decisions as Events. SetupWithManager fills it from the
	// manager when nil.
	Recorder events.Recorder

	controller controller.Controller
}

// SetupWithManager registers the controller and its watches: MachineHealthChecks,
// the Machines they select, their Clusters, the ClusterCache's connection events and,
// once a Cluster is connected, its workload Nodes.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.Workload == nil {
		return fmt.Errorf("machinehealthcheck reconciler needs Client and Workload")
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&clusterv1.MachineHealthCheck{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WithOptions(opts).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(r.machineToMachineHealthChecks),
			builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToMachineHealthChecks),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WatchesRawSource(r.Workload.GetClusterSource("machinehealthcheck", r.clusterKeyToMachineHealthChecks)).
		Build(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the machinehealthcheck controller: %w", err)
	}
	r.controller = c
	return nil
}

// scope holds what one reconcile read and decided.
type scope struct {
	cluster *clusterv1.Cluster
	mhc     *clusterv1.MachineHealthCheck

	// evaluated is false until the targets were judged: status is then left as it was.
	evaluated bool
	targets   []*target
	healthy   int
	// remediation is the outcome of remediation.triggerIf.
	remediation remediationDecision
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	mhc := &clusterv1.MachineHealthCheck{}
	if err := r.Client.Get(ctx, req.NamespacedName, mhc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", mhc.Spec.ClusterName)
	ctx = ctrl.LoggerInto(ctx, log)

	if !mhc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // no finalizer: nothing to clean up
	}
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: mhc.Namespace, Name: mhc.Spec.ClusterName}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("Waiting for the Cluster to exist")
			return ctrl.Result{}, nil // the Cluster watch brings us back
		}
		return ctrl.Result{}, fmt.Errorf("reading Cluster %s: %w", mhc.Spec.ClusterName, err)
	}

	helper, err := patch.NewHelper(mhc, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: cluster, mhc: mhc}
	defer func() {
		setStatus(s)
		err := helper.Patch(ctx, mhc)
		switch {
		case err == nil:
		case apierrors.IsConflict(err) && retErr == nil:
			// The read was stale; the event of the newer version brings us back anyway.
			log.V(4).Info("Status write lost a race, retrying", "reason", err.Error())
			res = lowestRequeue(res, ctrl.Result{RequeueAfter: conflictRequeue})
		default:
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if predicates.SetPausedCondition(mhc, cluster) {
		log.V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, nil
	}
	reconcileOwnerAndLabels(s)
	if !cluster.DeletionTimestamp.IsZero() {
		log.V(4).Info("Not checking Machines of a Cluster that is being deleted")
		return ctrl.Result{}, nil
	}
	return r.reconcileNormal(ctx, s)
}

// reconcileOwnerAndLabels labels the MachineHealthCheck with its Cluster and makes the
// Cluster an owner, so the MachineHealthCheck goes away with the Cluster.
func reconcileOwnerAndLabels(s *scope) {
	owner.LabelCluster(s.mhc, s.mhc.Spec.ClusterName)
	owner.EnsureClusterOwner(s.mhc, s.cluster)
}
