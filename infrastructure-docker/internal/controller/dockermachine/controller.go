package dockermachine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/util/errors"
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

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockermachines;dockermachines/status;dockermachines/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockerclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devmachines;devmachines/status;devmachines/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// DockerMachineLabel, on a node container, names the DockerMachine it was created for (in the
// namespace of io.capstan.cluster-namespace): Docker events map back to it, and a container of the
// same name made for another DockerMachine is never adopted.
const DockerMachineLabel = "io.capstan.docker-machine"

// Retry intervals for states no event announces.
const (
	imageRetry       = time.Minute
	nameTakenRetry   = time.Minute
	deletingRecorded = 100 * time.Millisecond
)

// Reconciler reconciles DockerMachines, or DevMachines.
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
	// Dev makes the controller reconcile DevMachines instead: each is read as the DockerMachine
	// its spec.backend.docker describes, reconciled by the same logic, and what changed is
	// written back to the DevMachine (package devkinds). Its cluster is then a DevCluster.
	Dev bool
	// Recorder records the node container's creation, bootstrap and removal as Events on the
	// DockerMachine. SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder
}

func (r *Reconciler) kinds() devkinds.Kinds { return devkinds.For(r.Dev) }

// nodes creates and bootstraps the node containers.
func (r *Reconciler) nodes() *node.Provisioner {
	return &node.Provisioner{Client: r.Client, APIReader: r.APIReader, Docker: r.Docker}
}

// SetupWithManager registers the controller, its watches, and the Docker event watcher that
// re-triggers a DockerMachine when its container, or any container of its Cluster, starts,
// stops or goes away. A DockerCluster whose load balancer moved re-triggers its Cluster's
// DockerMachines.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Docker == nil || r.Workload == nil {
		return errors.New("dockermachine reconciler needs Client, APIReader, Docker and Workload")
	}
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	newList := r.kinds().NewMachineList
	name := strings.ToLower(r.kinds().Machine)
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, name+"-controller")
	}
	clusterMachines := mapping.ClusterToObjects(r.Client, newList)
	dockerEvents, err := node.EventSource(mgr, name, r.Docker, DockerMachineLabel, clusterMachines)
	if err != nil {
		return fmt.Errorf("watching Docker events for the dockermachine controller: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(r.kinds().NewMachine(), builder.WithPredicates(filter)).
		WithOptions(opts).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(r.machineToDockerMachine), builder.WithPredicates(filter)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(mapping.ClusterObjectToObjects(r.Client, newList)),
			builder.WithPredicates(filter, predicates.ClusterUpdateTriggersChildren())).
		Watches(r.kinds().NewCluster(), handler.EnqueueRequestsFromMapFunc(node.DockerClusterToObjects(r.Client, clusterMachines)),
			builder.WithPredicates(filter, node.LoadBalancerAddressChanged())).
		WatchesRawSource(r.Workload.GetClusterSource(name, clusterMachines)).
		WatchesRawSource(dockerEvents).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the dockermachine controller: %w", err)
	}
	return nil
}

// machineToDockerMachine maps a Machine to the DockerMachine of its spec.infrastructureRef.
func (r *Reconciler) machineToDockerMachine(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	ref := m.Spec.InfrastructureRef
	if ref.Kind != r.kinds().Machine || ref.APIGroup != infrav1.GroupVersion.Group || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}}}
}

// scope holds what one reconcile read and found; status is computed from it in setStatus.
type scope struct {
	dockerMachine *infrav1.DockerMachine
	// regarding is the object Events are recorded on: the DockerMachine, or the DevMachine it
	// stands for.
	regarding client.Object
	machine   *clusterv1.Machine
	cluster   *clusterv1.Cluster
	owner     docker.Owner
	// containerName is the node container's name (and hostname, and Node name).
	containerName string
	container     *docker.Container
	// recreate is set when a container whose creation was cut off was removed to be made again.
	recreate bool

	// reconciled is set once the normal path ran, so that status reflects what it found; a
	// paused reconcile keeps the last conditions.
	reconciled bool
	// paused is set when the Cluster or the object is paused: only the Paused condition
	// changes then (the contract: no other change while paused).
	paused bool
	// provision is why the container is not provisioned (nil: it runs).
	provision *problem
	// bootstrap is the bootstrap's state when it is not (yet) successful; bootstrapped is set
	// when it succeeded (now or in an earlier reconcile).
	bootstrap    *problem
	bootstrapped bool
	// node is why the workload Node does not carry the providerID yet.
	node     *problem
	deleting *problem
}

type problem struct{ reason, message string }

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.Dev {
		return r.reconcileDev(ctx, req)
	}
	dm := &infrav1.DockerMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, dm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(dm, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	return r.reconcile(ctx, dm, dm, func(ctx context.Context) error { return helper.Patch(ctx, dm) })
}

// reconcileDev reconciles a DevMachine as the DockerMachine it describes, and patches the
// DevMachine with what changed.
func (r *Reconciler) reconcileDev(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	dev := &infrav1.DevMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, dev); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(dev, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	dm := devkinds.DockerMachine(dev)
	return r.reconcile(ctx, dm, dev, func(ctx context.Context) error {
		devkinds.ApplyDockerMachine(dev, dm)
		return helper.Patch(ctx, dev)
	})
}

// reconcile is the DockerMachine logic; commit writes dm (or the Dev object it stands for,
// regarding) once, after the status is computed.
func (r *Reconciler) reconcile(ctx context.Context, dm *infrav1.DockerMachine, regarding client.Object, commit func(context.Context) error) (_ ctrl.Result, retErr error) {
	s := &scope{dockerMachine: dm, regarding: regarding}
	defer func() {
		setStatus(s)
		if err := commit(ctx); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	clusterName := dm.Labels[clusterv1.ClusterNameLabel]
	s.owner = docker.Owner{Namespace: dm.Namespace, Cluster: clusterName}
	if clusterName != "" {
		cluster := &clusterv1.Cluster{}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: dm.Namespace, Name: clusterName}, cluster)
		switch {
		case err == nil:
			s.cluster = cluster
		case client.IgnoreNotFound(err) != nil:
			return ctrl.Result{}, fmt.Errorf("reading Cluster %s/%s: %w", dm.Namespace, clusterName, err)
		}
	}
	s.containerName = containerName(dm)
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", clusterName, "container", s.containerName)
	ctx = ctrl.LoggerInto(ctx, log)

	if predicates.SetPausedCondition(dm, s.cluster) {
		s.paused = true
		return ctrl.Result{}, nil
	}
	if !dm.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	s.reconciled = true
	machineName := ownerMachineName(dm)
	if machineName == "" {
		// The core's Machine controller sets the owner reference; its update re-triggers us.
		s.provision = &problem{infrav1.DockerMachineWaitingForMachineReason,
			"Waiting for the Machine controller to set an owner reference to the Machine that uses this DockerMachine"}
		return ctrl.Result{}, nil
	}
	machine := &clusterv1.Machine{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: dm.Namespace, Name: machineName}, machine); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("reading Machine %s/%s: %w", dm.Namespace, machineName, err)
		}
		s.provision = &problem{infrav1.DockerMachineWaitingForMachineReason, fmt.Sprintf("Waiting for the owner Machine %s/%s to exist", dm.Namespace, machineName)}
		return ctrl.Result{}, nil
	}
	s.machine = machine
	if s.cluster == nil {
		s.provision = &problem{infrav1.DockerMachineWaitingForClusterInfrastructureReason, fmt.Sprintf(
			"Waiting for Cluster %q (label %s) to exist in namespace %s", clusterName, clusterv1.ClusterNameLabel, dm.Namespace)}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(dm, infrav1.MachineFinalizer) {
		return ctrl.Result{}, nil // the patch re-triggers us
	}
	return r.reconcileNormal(ctx, s)
}

// ownerMachineName is the name of the Machine in dm's owner references, or "".
func ownerMachineName(dm *infrav1.DockerMachine) string {
	return owner.NameOf(dm, clusterv1.GroupVersion.WithKind("Machine").GroupKind())
}

// containerName is the node container's name: the owner Machine's name, as upstream CAPD names
// it, so that the container, its hostname and the workload Node all carry the name users see on
// the Machine. Once spec.providerID is set it is the name recorded there (the owner reference
// may be gone while deleting).
func containerName(dm *infrav1.DockerMachine) string {
	if name := node.ContainerName(dm.Spec.ProviderID); name != "" {
		return name
	}
	return ownerMachineName(dm)
}
