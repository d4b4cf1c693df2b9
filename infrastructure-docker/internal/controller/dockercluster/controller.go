package dockercluster

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/devkinds"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockerclusters;dockerclusters/status;dockerclusters/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=dockermachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devclusters;devclusters/status;devclusters/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=devmachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// The load balancer's image is <imageRepository>/haproxy:<imageTag>, as in upstream's Docker
// provider (whose defaults are kindest and a kindest/haproxy tag); Capstan's own image, built by
// `make lb-image`, is the default.
const (
	// DefaultLoadBalancerImageRepository is spec.loadBalancer.imageRepository when unset.
	DefaultLoadBalancerImageRepository = "capstan"
	// LoadBalancerImageName is the image name appended to the repository.
	LoadBalancerImageName = "haproxy"
	// DefaultLoadBalancerImageTag is spec.loadBalancer.imageTag when unset.
	DefaultLoadBalancerImageTag = "latest"
	// DefaultLoadBalancerImage is the load balancer's image when spec.loadBalancer leaves it unset.
	DefaultLoadBalancerImage = DefaultLoadBalancerImageRepository + "/" + LoadBalancerImageName + ":" + DefaultLoadBalancerImageTag
)

// Reconciler reconciles DockerClusters, or DevClusters.
type Reconciler struct {
	Client client.Client
	// Docker is the management plane's Docker Engine.
	Docker *docker.Runtime
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// Dev makes the controller reconcile DevClusters instead: each is read as the DockerCluster
	// its spec.backend.docker describes, reconciled by the same logic, and what changed is
	// written back to the DevCluster (package devkinds). Its peers are then DevMachines.
	Dev bool
	// Recorder records the load balancer's creation, reconfiguration and removal as Events on
	// the DockerCluster. SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder
}

func (r *Reconciler) kinds() devkinds.Kinds { return devkinds.For(r.Dev) }

// SetupWithManager registers the controller, its watches, and the Docker event watcher that
// re-triggers a DockerCluster when one of its control-plane containers starts or stops.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.Docker == nil {
		return errors.New("dockercluster reconciler needs Client and Docker")
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, strings.ToLower(r.kinds().Cluster)+"-controller")
	}
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	dockerEvents := make(chan event.GenericEvent)
	err := ctrl.NewControllerManagedBy(mgr).
		For(r.kinds().NewCluster(), builder.WithPredicates(filter)).
		WithOptions(opts).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToDockerCluster),
			builder.WithPredicates(filter, predicates.ClusterUpdateTriggersChildren())).
		Watches(r.kinds().NewMachine(), handler.EnqueueRequestsFromMapFunc(r.toDockerClusters)).
		WatchesRawSource(source.Channel(dockerEvents, handler.EnqueueRequestsFromMapFunc(r.toDockerClusters))).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the dockercluster controller: %w", err)
	}
	// A leader-elected runnable: only the leader acts on Docker events.
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		watchDocker(ctrl.LoggerInto(ctx, mgr.GetLogger().WithName("dockercluster")), r.Docker, dockerEvents)
		return nil
	}))
}

// watchDocker turns Docker events of control-plane and load-balancer containers into generic
// events naming their Cluster (a Cluster object carrying only namespace and name). After the
// stream fails it waits a second, reconnects, and sends an event with no namespace, which
// re-triggers every DockerCluster: events missed meanwhile are lost.
func watchDocker(ctx context.Context, rt *docker.Runtime, out chan<- event.GenericEvent) {
	log := ctrl.LoggerFrom(ctx).WithName("docker-events")
	send := func(ns, name string) bool {
		select {
		case out <- event.GenericEvent{Object: &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	rt.FollowContainers(ctx,
		func(err error) { log.Error(err, "Docker event stream failed; reconnecting") },
		func() bool { return send("", "") },
		func(ev docker.ContainerEvent) bool {
			if ev.Role != docker.RoleControlPlane && ev.Role != docker.RoleLoadBalancer {
				return true
			}
			return send(ev.Owner.Namespace, ev.Owner.Cluster)
		})
}

// clusterToDockerCluster maps a Cluster to its DockerCluster through spec.infrastructureRef.
func (r *Reconciler) clusterToDockerCluster(_ context.Context, o client.Object) []reconcile.Request {
	c, ok := o.(*clusterv1.Cluster)
	if !ok {
		return nil
	}
	ref := c.Spec.InfrastructureRef
	if ref.Kind != r.kinds().Cluster || ref.APIGroup != infrav1.GroupVersion.Group || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}}}
}

// toDockerClusters maps an object naming a Cluster (by its cluster-name label, or a Cluster
// placeholder from the Docker watcher) to the DockerClusters that Cluster owns; a placeholder
// with no namespace maps to every DockerCluster.
func (r *Reconciler) toDockerClusters(ctx context.Context, o client.Object) []reconcile.Request {
	ns, cluster := o.GetNamespace(), o.GetLabels()[clusterv1.ClusterNameLabel]
	if _, ok := o.(*clusterv1.Cluster); ok {
		cluster = o.GetName()
	}
	list := r.kinds().NewClusterList()
	var opts []client.ListOption
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := r.Client.List(ctx, list, opts...); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing DockerClusters to map an event")
		return nil
	}
	var out []reconcile.Request
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		dc, ok := o.(client.Object)
		if !ok || (r.WatchFilterValue != "" && dc.GetLabels()[clusterv1.WatchLabel] != r.WatchFilterValue) {
			return nil
		}
		if ns == "" || clusterName(dc) == cluster {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(dc)})
		}
		return nil
	})
	return out
}

// scope holds what one reconcile read and found.
type scope struct {
	dockerCluster *infrav1.DockerCluster
	// regarding is the object Events are recorded on: the DockerCluster, or the DevCluster it
	// stands for.
	regarding client.Object
	cluster   *clusterv1.Cluster
	owner     docker.Owner

	// waitingForCluster is set while there is no owner reference to a Cluster.
	waitingForCluster bool
	// reconciled is set once the normal path ran, so that status reflects what it found; a
	// paused reconcile keeps the last conditions.
	reconciled bool
	// paused is set when the Cluster or the object is paused: only the Paused condition
	// changes then (the contract: no other change while paused).
	paused bool
	lb     *docker.Container
	// lbCreated is set when this reconcile created the load balancer: its first configuration
	// is part of the creation, not a reload worth an Event.
	lbCreated bool
	// lbProblem is why the load balancer is not available: reason and message.
	lbProblem *problem
	backends  []backend
	deleting  *problem
}

type problem struct{ reason, message string }

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.Dev {
		return r.reconcileDev(ctx, req)
	}
	dc := &infrav1.DockerCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, dc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(dc, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	return r.reconcile(ctx, dc, dc, func(ctx context.Context) error { return helper.Patch(ctx, dc) })
}

// reconcileDev reconciles a DevCluster as the DockerCluster it describes, and patches the
// DevCluster with what changed.
func (r *Reconciler) reconcileDev(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	dev := &infrav1.DevCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, dev); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(dev, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	dc := devkinds.DockerCluster(dev)
	return r.reconcile(ctx, dc, dev, func(ctx context.Context) error {
		devkinds.ApplyDockerCluster(dev, dc)
		return helper.Patch(ctx, dev)
	})
}

// reconcile is the DockerCluster logic; commit writes dc (or the Dev object it stands for,
// regarding) once, after the status is computed.
func (r *Reconciler) reconcile(ctx context.Context, dc *infrav1.DockerCluster, regarding client.Object, commit func(context.Context) error) (_ ctrl.Result, retErr error) {
	s := &scope{dockerCluster: dc, regarding: regarding}
	defer func() {
		setStatus(s)
		if err := commit(ctx); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	name := clusterName(dc)
	s.owner = docker.Owner{Namespace: dc.Namespace, Cluster: name}
	if name != "" {
		cluster := &clusterv1.Cluster{}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: dc.Namespace, Name: name}, cluster)
		switch {
		case err == nil:
			s.cluster = cluster
		case client.IgnoreNotFound(err) != nil:
			return ctrl.Result{}, fmt.Errorf("reading Cluster %s/%s: %w", dc.Namespace, name, err)
		}
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Cluster", name)
	ctx = ctrl.LoggerInto(ctx, log)

	if predicates.SetPausedCondition(dc, s.cluster) {
		s.paused = true
		return ctrl.Result{}, nil
	}
	if !dc.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if ownerClusterName(dc) == "" {
		// The core's Cluster controller sets the owner reference; its update re-triggers us.
		log.Info("Waiting for the Cluster controller to set an owner reference")
		s.waitingForCluster = true
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(dc, infrav1.ClusterFinalizer) {
		return ctrl.Result{}, nil
	}
	return r.reconcileNormal(ctx, s)
}

// ownerClusterName is the name of the Cluster in dc's owner references, or "".
func ownerClusterName(dc metav1.Object) string {
	return owner.NameOf(dc, clusterv1.GroupVersion.WithKind("Cluster").GroupKind())
}

// clusterName is the owner Cluster's name, or the cluster-name label when there is no owner
// reference (yet, or any more).
func clusterName(dc metav1.Object) string {
	if name := ownerClusterName(dc); name != "" {
		return name
	}
	return dc.GetLabels()[clusterv1.ClusterNameLabel]
}

// loadBalancerName is upstream CAPD's name for the load-balancer container.
func loadBalancerName(cluster string) string { return cluster + "-lb" }
