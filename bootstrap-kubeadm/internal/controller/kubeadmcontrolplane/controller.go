/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package kubeadmcontrolplane

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"k8s.io/client-go/rest"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	"capstan.dev/contracts/remote"
)

// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=kubeadmcontrolplanes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=kubeadmcontrolplanes/status,verbs=patch
// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=kubeadmcontrolplanes/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines/status,verbs=patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=list
// +kubebuilder:rbac:groups=bootstrap.cluster.x-k8s.io,resources=kubeadmconfigs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=*,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update

// defaultWaitRequeue is how often a KubeadmControlPlane re-checks what no watch tells it about:
// kube-system/kubeadm-config in the workload cluster (ConfigMaps are never cached) and missing
// certificates.
const defaultWaitRequeue = 10 * time.Second

// WorkloadClusters is what the controller uses of contracts/remote's ClusterCache: clients for a
// workload cluster (cached, and live for Pods), its REST config (for the etcd port-forward), and a
// source that re-triggers KubeadmControlPlanes when one connects.
type WorkloadClusters interface {
	GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetUncachedClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetRESTConfig(ctx context.Context, cluster client.ObjectKey) (*rest.Config, error)
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}

// Reconciler reconciles KubeadmControlPlanes.
type Reconciler struct {
	// Client reads KubeadmControlPlanes, Clusters, Machines and templates from the cache and writes.
	Client client.Client
	// APIReader reads Secrets uncached, and Machines live before a scaling decision, so that a
	// cache that has not yet seen this controller's last creation never causes a second one.
	APIReader client.Reader
	// Workload gives access to workload clusters (contracts/remote.ClusterCache).
	Workload WorkloadClusters
	// WaitRequeue is how often it re-checks what it waits for without a watch (10s when zero).
	WaitRequeue time.Duration
	// Now is the clock (time.Now when nil); tests move it to exercise certificate rotation.
	Now func() time.Time
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// EtcdClientFor opens a client to a workload cluster's etcd through the member on a node;
	// by default a port-forward through the workload API server to Pod kube-system/etcd-<node>
	// with a client certificate signed by <cluster>-etcd. Tests put a double here.
	EtcdClientFor EtcdClientFunc
	// APIServerCertificateExpiry reads a node's API server certificate expiry; by default through
	// a port-forward to Pod kube-system/kube-apiserver-<node>. Tests put a double here.
	APIServerCertificateExpiry APIServerCertificateExpiryFunc
	// Recorder records scaling, rollout steps and etcd member removals as Events.
	// SetupWithManager fills it from the manager when nil.
	Recorder events.Recorder
	// unhealthyHolds is the ControlPlaneUnhealthy message last recorded per KubeadmControlPlane
	// (by UID): a reconcile that reads a cached object older than the previous reconcile's status
	// write must not record the same hold again (events.go).
	unhealthyHolds sync.Map
}

// SetupWithManager registers the controller and its watches: KubeadmControlPlanes, the Machines
// they control, Clusters (pause, endpoint, initialization, deletion) and workload cluster
// connections.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Workload == nil {
		return errors.New("kubeadmcontrolplane reconciler needs Client, APIReader and Workload")
	}
	if r.WaitRequeue == 0 {
		r.WaitRequeue = defaultWaitRequeue
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	if r.EtcdClientFor == nil {
		r.EtcdClientFor = r.realEtcdClient
	}
	if r.APIServerCertificateExpiry == nil {
		r.APIServerCertificateExpiry = r.realAPIServerCertificateExpiry
	}
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	err := ctrl.NewControllerManagedBy(mgr).
		// Paused KubeadmControlPlanes are not filtered out: Reconcile reports them with the Paused condition.
		For(&controlplanev1.KubeadmControlPlane{}, builder.WithPredicates(filter)).
		Named("kubeadmcontrolplane").
		WithOptions(opts).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(),
			&controlplanev1.KubeadmControlPlane{}, handler.OnlyControllerOwner())).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToControlPlane),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), filter)).
		WatchesRawSource(r.Workload.GetClusterSource("kubeadmcontrolplane", r.clusterKeyToControlPlane)).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the kubeadmcontrolplane controller: %w", err)
	}
	return nil
}

// scope holds what one reconcile read and found, for the status computation.
type scope struct {
	kcp     *controlplanev1.KubeadmControlPlane
	cluster *clusterv1.Cluster
	now     time.Time

	// machines are the Machines the KubeadmControlPlane controls, sorted by name; machinesRead says
	// whether they could be listed (status counts are kept as they are otherwise).
	machines     []*clusterv1.Machine
	machinesRead bool
	// parts are the KubeadmConfig and InfraMachine of each Machine not being deleted, by name.
	parts map[string]machineParts

	// clusterWait says what the control plane waits for from its Cluster (owner reference,
	// infrastructure, endpoint); nothing past it was reconciled.
	clusterWait string
	// certs is what reading the certificates found; nil when they were not looked at.
	certs *certsResult
	// kubeconfigWait says why the kubeconfig Secret could not be written.
	kubeconfigWait string
	// initWait says why the control plane is not known to be initialized.
	initWait string
	// scaleUpBlocked and scaleDownBlocked say why Machines are not being created or deleted.
	scaleUpBlocked, scaleDownBlocked string
	// remediationCandidate is the Machine a MachineHealthCheck marked that is remediated next;
	// remediationBlocked says why it is not now; remediated names the Machine deleted this pass.
	remediationCandidate *clusterv1.Machine
	remediationBlocked   string
	remediated           string

	// workersWait names the Cluster's worker Machines and MachinePools the deletion waits for.
	workersWait string

	// workloadWait says why the workload cluster's health was not looked at.
	workloadWait string
	// health holds, by Machine name, the health conditions computed for each Machine with a
	// Node; nil when they were not looked at.
	health map[string][]metav1.Condition
	// etcd is what reading the members found (nil: not looked at); etcdPlan the member
	// reconciliation's decision; etcdRemoved the member it removed in this pass.
	etcd        *etcdResult
	etcdPlan    *etcdPlan
	etcdRemoved string
	// etcdConn is the reconcile's etcd client (closed when it ends), through etcdVia's member.
	etcdConn etcd.Client
	etcdVia  string
	// snapshots is what the scheduled etcd snapshot step found (nil: it did not run).
	snapshots *snapshotResult
	// preTerminateWait says why the deleting Machine whose pre-terminate hook is handled next
	// still has its etcd member (or its hook).
	preTerminateWait string
}

// certsResult is the outcome of reading (or generating) the cluster certificates.
type certsResult struct {
	missing []string // Secrets that do not exist after initialization
	err     error    // anything else
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	kcp := &controlplanev1.KubeadmControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, kcp); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("reading KubeadmControlPlane %s: %w", req.NamespacedName, err)
	}
	s := &scope{kcp: kcp, now: r.Now()}
	if err := r.readCluster(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.cluster != nil {
		ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("Cluster", s.cluster.Name))
	}

	helper, err := patch.NewHelper(kcp, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if predicates.SetPausedCondition(kcp, s.cluster) {
		ctrl.LoggerFrom(ctx).V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, helper.Patch(ctx, kcp)
	}
	if kcp.DeletionTimestamp.IsZero() && !controllerutil.ContainsFinalizer(kcp, controlplanev1.KubeadmControlPlaneFinalizer) {
		// Written on its own and first, so that no Machine exists before the KubeadmControlPlane
		// can clean it up; the update event brings the next reconcile.
		controllerutil.AddFinalizer(kcp, controlplanev1.KubeadmControlPlaneFinalizer)
		return ctrl.Result{}, helper.Patch(ctx, kcp)
	}

	defer func() {
		if s.etcdConn != nil {
			s.etcdConn.Close()
		}
		setStatus(s, retErr == nil)
		if err := helper.Patch(ctx, kcp); err != nil && !(apierrors.IsNotFound(err) && !kcp.DeletionTimestamp.IsZero()) {
			retErr = errors.Join(retErr, err) // a deleted KubeadmControlPlane whose finalizer just went has nothing left to patch
		}
	}()

	if err := r.readMachines(ctx, s, r.Client); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.readMachineParts(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if !kcp.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	return r.reconcileNormal(ctx, s)
}

// readCluster finds the owner Cluster: the Cluster controller sets an owner reference on the
// control plane its spec.controlPlaneRef names. What is missing becomes a wait.
func (r *Reconciler) readCluster(ctx context.Context, s *scope) error {
	kcp := s.kcp
	name := owner.NameOf(kcp, clusterv1.GroupVersion.WithKind("Cluster").GroupKind())
	if name == "" {
		s.clusterWait = "Waiting for a Cluster to own this KubeadmControlPlane: the Cluster controller sets the owner reference on the control plane its spec.controlPlaneRef names"
		return nil
	}
	c := &clusterv1.Cluster{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: kcp.Namespace, Name: name}, c)
	switch {
	case apierrors.IsNotFound(err):
		s.clusterWait = fmt.Sprintf("Waiting for Cluster %s, the owner of this KubeadmControlPlane, to exist", name)
	case err != nil:
		return fmt.Errorf("reading Cluster %s: %w", name, err)
	default:
		s.cluster = c
	}
	return nil
}

// clusterToControlPlane enqueues the KubeadmControlPlane a Cluster's spec.controlPlaneRef names.
func clusterToControlPlane(_ context.Context, o client.Object) []reconcile.Request {
	c, ok := o.(*clusterv1.Cluster)
	if !ok {
		return nil
	}
	ref := c.Spec.ControlPlaneRef
	if ref.Kind != "KubeadmControlPlane" || ref.APIGroup != controlplanev1.GroupVersion.Group || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}}}
}

// clusterKeyToControlPlane is clusterToControlPlane for the ClusterCache's connection events.
func (r *Reconciler) clusterKeyToControlPlane(ctx context.Context, key client.ObjectKey) []reconcile.Request {
	c := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, key, c); err != nil {
		return nil
	}
	return clusterToControlPlane(ctx, c)
}
