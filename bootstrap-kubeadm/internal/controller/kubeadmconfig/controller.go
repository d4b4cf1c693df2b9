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

package kubeadmconfig

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/locking"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	"capstan.dev/contracts/remote"
)

// +kubebuilder:rbac:groups=bootstrap.cluster.x-k8s.io,resources=kubeadmconfigs,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=bootstrap.cluster.x-k8s.io,resources=kubeadmconfigs/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines;machinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;delete
// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=kubeadmcontrolplanes,verbs=get
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get

const (
	// DefaultTokenTTL is how long a bootstrap token is valid, as upstream's --bootstrap-token-ttl.
	DefaultTokenTTL = 15 * time.Minute

	// defaultWaitRequeue is how often a KubeadmConfig re-checks something no watch tells it
	// about: the init lock holder, Secrets named by files, missing certificates.
	defaultWaitRequeue = 10 * time.Second
)

// WorkloadClusters is what the controller uses of contracts/remote's ClusterCache: a client for
// a workload cluster, and a source that re-triggers KubeadmConfigs when one connects.
type WorkloadClusters interface {
	GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}

// Reconciler reconciles KubeadmConfigs.
type Reconciler struct {
	// Client reads KubeadmConfigs, Machines and Clusters from the cache and writes.
	Client client.Client
	// APIReader reads Secrets and ConfigMaps uncached.
	APIReader client.Reader
	// Workload gives access to workload clusters (contracts/remote.ClusterCache).
	Workload WorkloadClusters
	// TokenTTL is the lifetime of the bootstrap tokens it creates (DefaultTokenTTL when zero).
	// A token is refreshed or rotated once less than TTL/2 of it is left, checked every TTL/3.
	TokenTTL time.Duration
	// WaitRequeue is how often it re-checks what it waits for without a watch (10s when zero).
	WaitRequeue time.Duration
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// Recorder records the writes of the bootstrap data as Events. SetupWithManager fills it
	// from the manager when nil.
	Recorder events.Recorder
}

// SetupWithManager registers the controller and its watches.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Workload == nil {
		return fmt.Errorf("kubeadmconfig reconciler needs Client, APIReader and Workload")
	}
	if r.TokenTTL == 0 {
		r.TokenTTL = DefaultTokenTTL
	}
	if r.Recorder == nil {
		r.Recorder = events.New(mgr, ControllerName)
	}
	if r.WaitRequeue == 0 {
		r.WaitRequeue = defaultWaitRequeue
	}
	configs := func() client.ObjectList { return &bootstrapv1.KubeadmConfigList{} }
	err := ctrl.NewControllerManagedBy(mgr).
		// Paused KubeadmConfigs are not filtered out: Reconcile reports them with the Paused condition.
		For(&bootstrapv1.KubeadmConfig{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WithOptions(opts).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(machineToConfig),
			builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		Watches(&clusterv1.MachinePool{}, handler.EnqueueRequestsFromMapFunc(machinePoolToConfig),
			builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(mapping.ClusterObjectToObjects(r.Client, configs)),
			builder.WithPredicates(predicates.ClusterUpdateTriggersChildren(), predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		WatchesRawSource(r.Workload.GetClusterSource("kubeadmconfig", mapping.ClusterToObjects(r.Client, configs))).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the kubeadmconfig controller: %w", err)
	}
	return nil
}

// scope holds what one reconcile read and found.
type scope struct {
	config  *bootstrapv1.KubeadmConfig
	owner   configOwner
	cluster *clusterv1.Cluster

	// leaveStatus is set when the reconcile must not compute status (paused, deleting).
	leaveStatus bool
	// waitingFor says what the bootstrap data waits for; empty when nothing is known to block it.
	waitingFor string
	// certs is what reading the certificates found; nil when they were not looked at.
	certs *certsResult
}

// certsResult is the outcome of reading (or generating) the certificates a Machine needs.
type certsResult struct {
	missing []string // Secrets that do not exist
	err     error    // anything else
}

// wait records what the data Secret waits for.
func (s *scope) wait(format string, args ...any) { s.waitingFor = fmt.Sprintf(format, args...) }

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	cfg := &bootstrapv1.KubeadmConfig{}
	if err := r.Client.Get(ctx, req.NamespacedName, cfg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &scope{config: cfg}
	if err := r.readOwnerAndCluster(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.cluster != nil {
		ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("Cluster", s.cluster.Name))
	}

	helper, err := patch.NewHelper(cfg, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() {
		setStatus(s, retErr)
		if err := helper.Patch(ctx, cfg); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()

	if predicates.SetPausedCondition(cfg, s.cluster) {
		s.leaveStatus = true
		ctrl.LoggerFrom(ctx).V(4).Info("Reconciliation is paused")
		return ctrl.Result{}, nil
	}
	if !cfg.DeletionTimestamp.IsZero() {
		// No finalizer and nothing to clean up: the data Secret has this KubeadmConfig as
		// controller owner and goes with it through garbage collection; the certificates and
		// the init lock belong to the Cluster; bootstrap tokens expire on their own.
		s.leaveStatus = true
		return ctrl.Result{}, nil
	}
	if s.waitingFor != "" {
		return ctrl.Result{}, nil // the Machine or Cluster watch brings us back
	}
	return r.reconcileNormal(ctx, s)
}

// readOwnerAndCluster finds the owner (controller owner reference: a Machine or a MachinePool)
// and the Cluster (cluster-name label, else the owner's spec.clusterName). What is missing
// becomes a wait.
func (r *Reconciler) readOwnerAndCluster(ctx context.Context, s *scope) error {
	cfg := s.config
	if err := r.readOwner(ctx, s); err != nil {
		return err
	}
	name := cfg.Labels[clusterv1.ClusterNameLabel]
	if name == "" && s.owner.found() {
		name = s.owner.clusterName()
	}
	if name == "" {
		return nil
	}
	c := &clusterv1.Cluster{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: cfg.Namespace, Name: name}, c)
	switch {
	case apierrors.IsNotFound(err):
		if s.waitingFor == "" {
			s.wait("Waiting for Cluster %s to exist", name)
		}
	case err != nil:
		return fmt.Errorf("reading Cluster %s: %w", name, err)
	default:
		s.cluster = c
	}
	return nil
}

// lock returns the Cluster's init lock.
func (r *Reconciler) lock() *locking.InitLock {
	return &locking.InitLock{Reader: r.APIReader, Writer: r.Client}
}

// clusterKey names the Cluster the way certs and remote want it.
func clusterKey(c *clusterv1.Cluster) client.ObjectKey { return client.ObjectKeyFromObject(c) }
