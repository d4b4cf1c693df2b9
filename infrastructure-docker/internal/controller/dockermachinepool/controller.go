package dockermachinepool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/devkinds"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockermachinepools,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockermachinepools/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockerclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devmachinepools,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devmachinepools/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// DockerMachinePoolLabel, on a node container, names the DockerMachinePool it was created for
// (in the namespace of io.capstan.cluster-namespace): the pool's containers are listed by it, and
// Docker events map back to the pool.
const DockerMachinePoolLabel = "io.capstan.docker-machine-pool"

// Retry intervals for states no event announces.
const (
	imageRetry       = time.Minute
	deletingRecorded = 100 * time.Millisecond
	// defaultNodeReadyPoll is Reconciler.NodeReadyPoll when unset.
	defaultNodeReadyPoll = 10 * time.Second
)

// Reconciler reconciles DockerMachinePools, or DevMachinePools.
type Reconciler struct {
	Client client.Client
	// APIReader reads the bootstrap data Secrets live: the manager caches no Secret.
	APIReader client.Reader
	// Docker is the management plane's Docker Engine.
	Docker *docker.Runtime
	// Workload reaches the workload clusters' API servers, to set the Nodes' providerID.
	Workload node.WorkloadClusters
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// NodeReadyPoll is how often a rollout that waits for a new instance's Node to be Ready
	// checks again, in case no MachinePool status change announces it (10s when zero).
	NodeReadyPoll time.Duration
	// Dev makes the controller reconcile DevMachinePools instead: each is read as the
	// DockerMachinePool its spec.backend.docker describes, reconciled by the same logic, and what
	// changed is written back to the DevMachinePool (package devkinds).
	Dev bool
	// Recorder records the instances created and removed as Events on the DockerMachinePool.
	// SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder
}

func (r *Reconciler) kinds() devkinds.Kinds { return devkinds.For(r.Dev) }

// nodes creates and bootstraps the node containers.
func (r *Reconciler) nodes() *node.Provisioner {
	return &node.Provisioner{Client: r.Client, APIReader: r.APIReader, Docker: r.Docker}
}

// SetupWithManager registers the controller, its watches, and the Docker event watcher that
// re-triggers a DockerMachinePool when one of its containers, or any container of its Cluster,
// starts, stops or goes away. A DockerCluster whose load balancer moved re-triggers its
// Cluster's DockerMachinePools.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Docker == nil || r.Workload == nil {
		return errors.New("dockermachinepool reconciler needs Client, APIReader, Docker and Workload")
	}
	if r.NodeReadyPoll == 0 {
		r.NodeReadyPoll = defaultNodeReadyPoll
	}
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	newList := r.kinds().NewMachinePoolList
	name := strings.ToLower(r.kinds().MachinePool)
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, name+"-controller")
	}
	clusterPools := mapping.ClusterToObjects(r.Client, newList)
	dockerEvents, err := node.EventSource(mgr, name, r.Docker, DockerMachinePoolLabel, clusterPools)
	if err != nil {
		return fmt.Errorf("watching Docker events for the dockermachinepool controller: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(r.kinds().NewMachinePool(), builder.WithPredicates(filter)).
		WithOptions(opts).
		Watches(&clusterv1.MachinePool{}, handler.EnqueueRequestsFromMapFunc(r.machinePoolToDockerMachinePool), builder.WithPredicates(filter)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(mapping.ClusterObjectToObjects(r.Client, newList)),
			builder.WithPredicates(filter, predicates.ClusterUpdateTriggersChildren())).
		Watches(r.kinds().NewCluster(), handler.EnqueueRequestsFromMapFunc(node.DockerClusterToObjects(r.Client, clusterPools)),
			builder.WithPredicates(filter, node.LoadBalancerAddressChanged())).
		WatchesRawSource(r.Workload.GetClusterSource(name, clusterPools)).
		WatchesRawSource(dockerEvents).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the dockermachinepool controller: %w", err)
	}
	return nil
}

// machinePoolToDockerMachinePool maps a MachinePool to the DockerMachinePool of its
// spec.template.spec.infrastructureRef.
func (r *Reconciler) machinePoolToDockerMachinePool(_ context.Context, o client.Object) []reconcile.Request {
	mp, ok := o.(*clusterv1.MachinePool)
	if !ok {
		return nil
	}
	if !r.usesPool(mp, mp.Spec.Template.Spec.InfrastructureRef.Name) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: mp.Namespace, Name: mp.Spec.Template.Spec.InfrastructureRef.Name}}}
}

// usesPool reports whether the MachinePool's infrastructureRef names the DockerMachinePool name.
func (r *Reconciler) usesPool(mp *clusterv1.MachinePool, name string) bool {
	ref := mp.Spec.Template.Spec.InfrastructureRef
	return ref.Kind == r.kinds().MachinePool && ref.APIGroup == infrav1.GroupVersion.Group && ref.Name == name && name != ""
}

// scope holds what one reconcile read and found; status is computed from it in setStatus.
type scope struct {
	pool *infrav1.DockerMachinePool
	// regarding is the object Events are recorded on: the DockerMachinePool, or the
	// DevMachinePool it stands for.
	regarding   client.Object
	machinePool *clusterv1.MachinePool
	cluster     *clusterv1.Cluster
	owner       docker.Owner
	// desired is the MachinePool's spec.replicas, 1 when unset.
	desired int

	// reconciled is set once the normal path ran, so that status reflects what it found; a
	// paused reconcile keeps the last conditions.
	reconciled bool
	// paused is set when the Cluster or the object is paused: only the Paused condition
	// changes then (the contract: no other change while paused).
	paused bool
	// listed is set once the pool's containers were listed: instances is then what exists.
	listed    bool
	instances []*instance
	// spec is what a new instance is made from now; rolloutWait says why an outdated instance
	// is not removed yet.
	spec        instanceSpec
	rolloutWait string
	// wait is why the pool cannot go on (an owner, the Cluster, its infrastructure, the
	// bootstrap data, the image); nil when nothing is awaited.
	wait *problem
	// err is the unexpected error that ended the reconcile.
	err      error
	deleting *problem
}

type problem struct{ reason, message string }

// instance is one node container of the pool, as this reconcile found it.
type instance struct {
	container docker.Container
	// recorded is what status.instances said of it before this reconcile.
	recorded infrav1.DockerMachinePoolInstanceStatus
	// bootstrapped is set once the bootstrap succeeded (now or before); bootstrap holds the
	// bootstrap's state while it has not.
	bootstrapped bool
	bootstrap    *node.BootstrapStatus
	// ready is set once the Node carries the providerID; nodeWait says why it does not.
	ready    bool
	nodeWait string
	// outdated is set when the instance was made from an older template or version.
	outdated bool
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.Dev {
		return r.reconcileDev(ctx, req)
	}
	pool := &infrav1.DockerMachinePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, pool); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(pool, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	return r.reconcile(ctx, pool, pool, func(ctx context.Context) error { return helper.Patch(ctx, pool) })
}

// reconcileDev reconciles a DevMachinePool as the DockerMachinePool it describes, and patches
// the DevMachinePool with what changed.
func (r *Reconciler) reconcileDev(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	dev := &infrav1.DevMachinePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, dev); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(dev, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	pool := devkinds.DockerMachinePool(dev)
	return r.reconcile(ctx, pool, dev, func(ctx context.Context) error {
		devkinds.ApplyDockerMachinePool(dev, pool)
		return helper.Patch(ctx, dev)
	})
}

// reconcile is the DockerMachinePool logic; commit writes pool (or the Dev object it stands
// for, regarding) once, after the status is computed.
func (r *Reconciler) reconcile(ctx context.Context, pool *infrav1.DockerMachinePool, regarding client.Object, commit func(context.Context) error) (_ ctrl.Result, retErr error) {
	s := &scope{pool: pool, regarding: regarding, desired: 1}
	defer func() {
		if retErr != nil {
			s.err = retErr
		}
		setStatus(s)
		if err := commit(ctx); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if err := r.readOwnerAndCluster(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", s.owner.Cluster)
	if s.machinePool != nil {
		log = log.WithValues("MachinePool", s.machinePool.Name)
	}
	ctx = ctrl.LoggerInto(ctx, log)

	if predicates.SetPausedCondition(pool, s.cluster) {
		s.paused = true
		return ctrl.Result{}, nil
	}
	if !pool.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	s.reconciled = true
	if s.wait != nil {
		return ctrl.Result{}, nil // the MachinePool's or the Cluster's creation or update re-triggers us
	}
	if controllerutil.AddFinalizer(pool, infrav1.MachinePoolFinalizer) {
		return ctrl.Result{}, nil // the patch re-triggers us
	}
	return r.reconcileNormal(ctx, s)
}

// readOwnerAndCluster reads the owner MachinePool and the Cluster into s, and records in s.wait
// what is missing.
func (r *Reconciler) readOwnerAndCluster(ctx context.Context, s *scope) error {
	pool := s.pool
	mpName := ownerMachinePoolName(pool)
	switch {
	case mpName == "":
		s.wait = &problem{infrav1.DockerMachinePoolWaitingForMachinePoolReason,
			"Waiting for the MachinePool controller to set an owner reference to the MachinePool that uses this DockerMachinePool"}
	default:
		mp := &clusterv1.MachinePool{}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: mpName}, mp)
		switch {
		case client.IgnoreNotFound(err) != nil:
			return fmt.Errorf("reading MachinePool %s/%s: %w", pool.Namespace, mpName, err)
		case err != nil:
			s.wait = &problem{infrav1.DockerMachinePoolWaitingForMachinePoolReason, fmt.Sprintf(
				"Waiting for the owner MachinePool %s/%s to exist", pool.Namespace, mpName)}
		case !r.usesPool(mp, pool.Name):
			ref := mp.Spec.Template.Spec.InfrastructureRef
			s.wait = &problem{infrav1.DockerMachinePoolWaitingForMachinePoolReason, fmt.Sprintf(
				"The owner MachinePool %s/%s uses %s %q in spec.template.spec.infrastructureRef, not this DockerMachinePool: point it at DockerMachinePool %s, or delete this DockerMachinePool",
				pool.Namespace, mpName, ref.Kind, ref.Name, pool.Name)}
			s.machinePool = mp
		default:
			s.machinePool = mp
			s.desired = int(ptr.Deref(mp.Spec.Replicas, 1))
		}
	}

	clusterName := pool.Labels[clusterv1.ClusterNameLabel]
	if clusterName == "" && s.machinePool != nil {
		clusterName = s.machinePool.Spec.ClusterName
	}
	s.owner = docker.Owner{Namespace: pool.Namespace, Cluster: clusterName}
	if clusterName == "" {
		return nil // the wait for the owner says it
	}
	cluster := &clusterv1.Cluster{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: clusterName}, cluster)
	switch {
	case err == nil:
		s.cluster = cluster
	case client.IgnoreNotFound(err) != nil:
		return fmt.Errorf("reading Cluster %s/%s: %w", pool.Namespace, clusterName, err)
	case s.wait == nil:
		s.wait = &problem{infrav1.DockerMachinePoolWaitingForClusterInfrastructureReason, fmt.Sprintf(
			"Waiting for Cluster %q to exist in namespace %s", clusterName, pool.Namespace)}
	}
	return nil
}

// ownerMachinePoolName is the name of the MachinePool in the pool's owner references, or "".
func ownerMachinePoolName(pool *infrav1.DockerMachinePool) string {
	return owner.NameOf(pool, clusterv1.GroupVersion.WithKind("MachinePool").GroupKind())
}

// selector picks the pool's containers: its namespace and name. The Cluster is not part of it,
// so that deletion finds them even when the Cluster is gone.
func selector(pool *infrav1.DockerMachinePool) docker.Selector {
	return docker.Selector{Labels: map[string]string{docker.ClusterNamespaceLabel: pool.Namespace, DockerMachinePoolLabel: pool.Name}}
}
