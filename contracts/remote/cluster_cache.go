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

package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
)

// ErrClusterNotConnected is returned, wrapped, while there is no connection to a workload
// cluster. Controllers should not requeue on it but watch GetClusterSource.
var ErrClusterNotConnected = errors.New("connection to the workload cluster is down")

func notConnected(cluster client.ObjectKey) error {
	return fmt.Errorf("workload cluster of Cluster %s: %w", cluster, ErrClusterNotConnected)
}

// ControllerName is the name of the ClusterCache's controller in logs and metrics.
const ControllerName = "clustercache"

// ClusterCache keeps one connection per workload cluster; see the package documentation.
// It is safe for concurrent use.
type ClusterCache struct {
	opts   Options
	scheme *runtime.Scheme
	// client reads Clusters from the manager's cache.
	client client.Reader
	// secretVersions is a metadata-only informer on Secrets, stripped to names and resource
	// versions: it tells the reconciler that a kubeconfig Secret appeared, changed or went away
	// without caching any Secret data.
	secretVersions cache.Cache
	kicks          *kickSource

	// root is the parent of every connection's context; it ends when the manager stops.
	root       context.Context
	cancelRoot context.CancelFunc

	mu        sync.RWMutex
	accessors map[client.ObjectKey]*accessor
	closed    bool
	// wg counts every connection goroutine, so shutdown returns only once they are gone.
	wg sync.WaitGroup

	sourcesMu sync.Mutex
	sources   []*clusterSource
}

// SetupWithManager creates a ClusterCache and registers its controller over Clusters with
// mgr. Connections are dropped, and their goroutines have returned, when mgr stops.
func SetupWithManager(mgr ctrl.Manager, opts Options) (*ClusterCache, error) {
	opts, err := opts.defaulted()
	if err != nil {
		return nil, err
	}
	secretVersions, err := cache.New(mgr.GetConfig(), secretVersionsCacheOptions(mgr))
	if err != nil {
		return nil, fmt.Errorf("creating the kubeconfig Secret informer: %w", err)
	}
	root, cancelRoot := context.WithCancel(context.Background())
	cc := &ClusterCache{
		opts:           opts,
		scheme:         mgr.GetScheme(),
		client:         mgr.GetClient(),
		secretVersions: secretVersions,
		kicks:          &kickSource{},
		root:           root,
		cancelRoot:     cancelRoot,
		accessors:      map[client.ObjectKey]*accessor{},
	}
	// In the manager's cache group, so it has synced before any controller starts.
	if err := mgr.Add(managedCache{secretVersions}); err != nil {
		cancelRoot()
		return nil, fmt.Errorf("adding the kubeconfig Secret informer to the manager: %w", err)
	}
	stop := &stopper{cc: cc, needLeaderElection: ptr.Deref(opts.Controller.NeedLeaderElection, true)}
	if err := mgr.Add(stop); err != nil {
		cancelRoot()
		return nil, fmt.Errorf("adding the ClusterCache to the manager: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&clusterv1.Cluster{}).
		WatchesRawSource(source.Kind(secretVersions, secretMetadata(),
			handler.TypedEnqueueRequestsFromMapFunc(kubeconfigSecretToCluster))).
		WatchesRawSource(cc.kicks).
		WithOptions(opts.Controller).
		Complete(cc)
	if err != nil {
		cancelRoot()
		return nil, fmt.Errorf("creating the ClusterCache controller: %w", err)
	}
	return cc, nil
}

// GetClient returns a client for the workload cluster of the Cluster: reads come from the
// cluster's cache (Secrets, ConfigMaps and Pods are read live), writes go to its API server.
func (cc *ClusterCache) GetClient(_ context.Context, cluster client.ObjectKey) (client.Client, error) {
	conn, err := cc.connection(cluster)
	if err != nil {
		return nil, err
	}
	return conn.cachedClient, nil
}

// GetUncachedClient returns a client whose reads go to the workload cluster's API server, for
// kinds that must not be cached (e.g. Pods during drain) or reads that must be current.
func (cc *ClusterCache) GetUncachedClient(_ context.Context, cluster client.ObjectKey) (client.Client, error) {
	conn, err := cc.connection(cluster)
	if err != nil {
		return nil, err
	}
	return conn.uncachedClient, nil
}

// GetRESTConfig returns a copy of the REST config of the workload cluster.
func (cc *ClusterCache) GetRESTConfig(_ context.Context, cluster client.ObjectKey) (*rest.Config, error) {
	conn, err := cc.connection(cluster)
	if err != nil {
		return nil, err
	}
	return rest.CopyConfig(conn.restConfig), nil
}

// GetHealthCheckingState returns what the health probe knows about the Cluster's workload
// cluster; the zero value for a Cluster the ClusterCache has never tried to connect to.
func (cc *ClusterCache) GetHealthCheckingState(cluster client.ObjectKey) HealthCheckingState {
	if a := cc.accessor(cluster); a != nil {
		return a.healthCheckingState()
	}
	return HealthCheckingState{}
}

// Watch starts a watch on the workload cluster for a controller. It is idempotent per
// in.Name, and the ClusterCache re-establishes the watch after every reconnect, so calling it
// on every reconcile is cheap and calling it once per connection is enough. While
// disconnected it returns ErrClusterNotConnected and remembers nothing, and when the Cluster
// or its kubeconfig Secret goes away its watches are forgotten: call Watch again when
// GetClusterSource fires for a connect. Secrets, ConfigMaps and Pods are refused.
func (cc *ClusterCache) Watch(ctx context.Context, cluster client.ObjectKey, in WatchInput) error {
	if err := checkWatchable(cc.scheme, cluster, in); err != nil {
		return err
	}
	a := cc.accessor(cluster)
	if a == nil {
		return fmt.Errorf("starting watch %s: %w", in.Name, notConnected(cluster))
	}
	started, err := a.watch(in)
	if started {
		ctrl.LoggerFrom(ctx).V(4).Info("Started watch on the workload cluster", "watch", in.Name,
			"kind", fmt.Sprintf("%T", in.Kind))
	}
	return err
}

// GetClusterSource returns a source for the controller named controllerName that fires when
// a Cluster connects or disconnects (and, with WatchForProbeFailure, when its probe has
// been failing for a while), enqueueing the requests mapFunc returns for the Cluster. Call
// it once per controller.
func (cc *ClusterCache) GetClusterSource(controllerName string, mapFunc func(ctx context.Context, cluster client.ObjectKey) []reconcile.Request, opts ...ClusterSourceOption) source.Source {
	s := &clusterSource{
		controllerName: controllerName,
		mapFunc:        mapFunc,
		lastSent:       map[client.ObjectKey]time.Time{},
	}
	for _, o := range opts {
		o(s)
	}
	cc.sourcesMu.Lock()
	defer cc.sourcesMu.Unlock()
	cc.sources = append(cc.sources, s)
	return s
}

func (cc *ClusterCache) clusterSources() []*clusterSource {
	cc.sourcesMu.Lock()
	defer cc.sourcesMu.Unlock()
	return append([]*clusterSource(nil), cc.sources...)
}

func (cc *ClusterCache) accessor(key client.ObjectKey) *accessor {
	cc.mu.RLock()
	defer cc.mu.RUnlock()
	return cc.accessors[key]
}

// accessorOrNew returns the Cluster's accessor, creating it; nil once shutting down.
func (cc *ClusterCache) accessorOrNew(key client.ObjectKey) *accessor {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.closed {
		return nil
	}
	a, ok := cc.accessors[key]
	if !ok {
		a = newAccessor(key)
		cc.accessors[key] = a
	}
	return a
}

func (cc *ClusterCache) connection(cluster client.ObjectKey) (*connection, error) {
	if a := cc.accessor(cluster); a != nil {
		if conn := a.connection(); conn != nil {
			return conn, nil
		}
	}
	return nil, notConnected(cluster)
}

// spawn runs f in a goroutine counted by both the ClusterCache and conn; it refuses once the
// ClusterCache is shutting down, so shutdown's Wait never races an Add.
func (cc *ClusterCache) spawn(conn *connection, f func()) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.closed {
		return false
	}
	cc.wg.Add(1)
	conn.wg.Add(1)
	go func() {
		defer cc.wg.Done()
		defer conn.wg.Done()
		f()
	}()
	return true
}

// stopWithManager blocks until the manager stops, then drops every connection and waits for
// all connection goroutines to return.
func (cc *ClusterCache) stopWithManager(ctx context.Context) error {
	<-ctx.Done()
	cc.mu.Lock()
	cc.closed = true
	accessors := cc.accessors
	cc.accessors = map[client.ObjectKey]*accessor{}
	cc.mu.Unlock()

	cc.cancelRoot()
	for _, a := range accessors {
		a.disconnect(time.Time{})
	}
	cc.wg.Wait()
	return nil
}

// cachedSecretVersion returns the resource version of the Cluster's kubeconfig Secret as the
// metadata informer last saw it.
func (cc *ClusterCache) cachedSecretVersion(ctx context.Context, cluster client.ObjectKey) (string, bool) {
	m := secretMetadata()
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, secret.Kubeconfig)}
	if err := cc.secretVersions.Get(ctx, key, m); err != nil {
		return "", false
	}
	return m.ResourceVersion, true
}

// secretVersionsCacheOptions configures the metadata informer over kubeconfig Secrets. It is
// narrowed on the server to the contract's Secret type (cluster.x-k8s.io/secret, which every
// kubeconfig Secret must have): a management cluster holds many other Secrets, and informing
// on all of them cost about 1 KB of resident memory each although only names and versions
// are kept (scenario 6 of `make bench`, docs/benchmarks.md). A kubeconfig Secret of another
// type is still read, live, by reconcileDisconnected's retries and by every reconcile of a
// connected Cluster.
func secretVersionsCacheOptions(mgr ctrl.Manager) cache.Options {
	return cache.Options{
		HTTPClient:                  mgr.GetHTTPClient(),
		Scheme:                      mgr.GetScheme(),
		Mapper:                      mgr.GetRESTMapper(),
		DefaultFieldSelector:        fields.OneTermEqualSelector("type", string(clusterv1.ClusterSecretType)),
		DefaultTransform:            keepNameAndVersion,
		ReaderFailOnMissingInformer: true,
	}
}

func secretMetadata() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
}

// keepNameAndVersion strips Secret metadata to what the ClusterCache uses, so the informer
// over every Secret of the management cluster stays small.
func keepNameAndVersion(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.ObjectMeta = metav1.ObjectMeta{
			Name:            m.Name,
			Namespace:       m.Namespace,
			UID:             m.UID,
			ResourceVersion: m.ResourceVersion,
		}
	}
	return obj, nil
}

// kubeconfigSecretToCluster maps <cluster>-kubeconfig to its Cluster; other Secrets map to
// nothing.
func kubeconfigSecretToCluster(_ context.Context, s *metav1.PartialObjectMetadata) []reconcile.Request {
	name, ok := strings.CutSuffix(s.Name, "-"+string(secret.Kubeconfig))
	if !ok || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: name}}}
}

// stopper drops every connection when the manager stops. It runs in the same runnable group
// as the ClusterCache's controller (leader-elected or not), so it is running wherever
// connections can be made.
type stopper struct {
	cc                 *ClusterCache
	needLeaderElection bool
}

func (s *stopper) Start(ctx context.Context) error { return s.cc.stopWithManager(ctx) }

func (s *stopper) NeedLeaderElection() bool { return s.needLeaderElection }

// managedCache puts a cache into the manager's cache group, which starts and syncs before
// controllers.
type managedCache struct{ cache.Cache }

func (m managedCache) GetCache() cache.Cache { return m.Cache }
