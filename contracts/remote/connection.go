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
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// informerTimeout is the HTTP timeout of the workload cache's requests. The REST config's
// timeout (10s by default) would cut every informer's watch after 10s; the API server ends
// watches after 5 to 10 minutes on its own, so 11 minutes bounds a hung list without
// cutting a healthy watch.
const informerTimeout = 11 * time.Minute

// errShuttingDown is returned by a connect that raced with the manager stopping.
var errShuttingDown = errors.New("the ClusterCache is shutting down")

// connection is everything built from one kubeconfig. It lives from a successful connect to
// the next disconnect; a reconnect builds a new one.
type connection struct {
	kubeconfig []byte
	// secretVersion is the resourceVersion of the Secret last seen holding kubeconfig. Only
	// the reconciler of this Cluster reads and writes it.
	secretVersion string

	restConfig     *rest.Config
	probeClient    rest.Interface
	cachedClient   client.Client
	uncachedClient client.Client
	cache          cache.Cache

	// ctx ends when the connection is dropped or the manager stops; it stops the cache, the
	// probe and any watch source still waiting for its informer.
	ctx    context.Context
	cancel context.CancelFunc
	// wg counts the connection's goroutines (cache and probe).
	wg sync.WaitGroup
	// watches names the watches started on this connection; guarded by the accessor's lock.
	watches map[string]bool
	// log carries the Cluster key of the reconcile that connected, for the probe goroutine.
	log logr.Logger
}

// stop ends the connection and waits for its goroutines; the cache returns only once its
// informers have stopped.
func (c *connection) stop() {
	c.cancel()
	c.wg.Wait()
}

// newConnection builds and starts a connection to the workload cluster of cluster, in the
// order that makes failures cheapest and clearest: REST config, HTTP client, lazy RESTMapper,
// a probe of "/", the uncached client, and last the cache and cached client, which wait for
// the first sync of the Node informer behind NodeProviderIDIndex.
func (cc *ClusterCache) newConnection(ctx context.Context, cluster client.ObjectKey, kc kubeconfigSecret) (*connection, error) {
	log := ctrl.LoggerFrom(ctx)

	restConfig, err := RESTConfigFromKubeconfig(cluster, kc.data)
	if err != nil {
		return nil, err
	}
	restConfig.QPS = cc.opts.Client.QPS
	restConfig.Burst = cc.opts.Client.Burst
	restConfig.Timeout = cc.opts.Client.Timeout
	restConfig.UserAgent = cc.opts.Client.UserAgent

	httpClient, err := rest.HTTPClientFor(restConfig)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP client for Cluster %s: %w", cluster, err)
	}
	// The dynamic RESTMapper discovers a group only when first asked for one of its kinds, so
	// connecting costs no full discovery of the workload cluster.
	mapper, err := apiutil.NewDynamicRESTMapper(restConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating RESTMapper for Cluster %s: %w", cluster, err)
	}
	probeClient, err := newProbeClient(restConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating probe client for Cluster %s: %w", cluster, err)
	}
	// Probing before building anything else turns "cannot reach the API server" into one clear
	// error instead of a cache that never syncs.
	if err := probe(ctx, probeClient, cc.opts.HealthProbe.Timeout); err != nil {
		return nil, fmt.Errorf("probing the API server of Cluster %s at %s: %w", cluster, restConfig.Host, err)
	}
	uncached, err := client.New(restConfig, client.Options{Scheme: cc.scheme, Mapper: mapper, HTTPClient: httpClient})
	if err != nil {
		return nil, fmt.Errorf("creating uncached client for Cluster %s: %w", cluster, err)
	}

	cacheConfig := rest.CopyConfig(restConfig)
	cacheConfig.Timeout = informerTimeout
	cacheHTTPClient, err := rest.HTTPClientFor(cacheConfig)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP client for the cache of Cluster %s: %w", cluster, err)
	}
	workloadCache, err := cache.New(cacheConfig, cache.Options{
		HTTPClient:       cacheHTTPClient,
		Scheme:           cc.scheme,
		Mapper:           mapper,
		DefaultTransform: cache.TransformStripManagedFields(),
	})
	if err != nil {
		return nil, fmt.Errorf("creating cache for Cluster %s: %w", cluster, err)
	}
	if err := workloadCache.IndexField(ctx, &corev1.Node{}, NodeProviderIDIndex, nodeProviderID); err != nil {
		return nil, fmt.Errorf("indexing Nodes by %s for Cluster %s: %w", NodeProviderIDIndex, cluster, err)
	}
	cached, err := client.New(restConfig, client.Options{
		Scheme:     cc.scheme,
		Mapper:     mapper,
		HTTPClient: httpClient,
		Cache: &client.CacheOptions{
			Reader:       workloadCache,
			DisableFor:   neverCached,
			Unstructured: true,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating cached client for Cluster %s: %w", cluster, err)
	}

	conn := &connection{
		kubeconfig:    kc.data,
		secretVersion: kc.resourceVersion,
		restConfig:    restConfig,
		probeClient:   probeClient,
		cache:         workloadCache,
		watches:       map[string]bool{},
		log:           log,
	}
	// The connection outlives the reconcile that builds it: its context derives from the
	// ClusterCache's, which ends when the manager stops.
	conn.ctx, conn.cancel = context.WithCancel(cc.root)
	conn.cachedClient = &connectionClient{Client: cached, connCtx: conn.ctx, timeout: restConfig.Timeout, cluster: cluster}
	conn.uncachedClient = &connectionClient{Client: uncached, connCtx: conn.ctx, timeout: restConfig.Timeout, cluster: cluster}

	if !cc.spawn(conn, conn.runCache) {
		conn.cancel()
		return nil, errShuttingDown
	}
	syncCtx, cancelSync := context.WithTimeout(ctx, cc.opts.CacheSyncTimeout)
	defer cancelSync()
	stopSync := context.AfterFunc(conn.ctx, cancelSync)
	defer stopSync()
	if !workloadCache.WaitForCacheSync(syncCtx) {
		conn.stop()
		return nil, fmt.Errorf("the cache of Cluster %s did not sync within %s: %w",
			cluster, cc.opts.CacheSyncTimeout, context.Cause(syncCtx))
	}
	return conn, nil
}

// runCache runs the workload cache until the connection ends.
func (c *connection) runCache() {
	if err := c.cache.Start(c.ctx); err != nil {
		c.log.Error(err, "Workload cluster cache stopped with an error")
	}
}

// runProbes probes the workload cluster every interval until the connection ends. Every
// failure wakes the ClusterCache's reconciler, which disconnects when the probe says so and
// tells controllers that asked to hear about prolonged probe failures.
func (cc *ClusterCache) runProbes(a *accessor, conn *connection) {
	ticker := time.NewTicker(cc.opts.HealthProbe.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-conn.ctx.Done():
			return
		case <-ticker.C:
		}
		err := probe(conn.ctx, conn.probeClient, cc.opts.HealthProbe.Timeout)
		if conn.ctx.Err() != nil {
			return // dropped while probing: the failure says nothing about the cluster
		}
		mustDisconnect := a.recordProbe(conn, time.Now(), err, cc.opts.HealthProbe.FailureThreshold)
		if err == nil {
			conn.log.V(6).Info("Health probe succeeded")
			continue
		}
		conn.log.V(4).Info("Health probe failed", "error", err.Error(), "disconnecting", mustDisconnect)
		cc.kicks.kick(a.cluster)
	}
}

// newProbeClient returns a REST client for raw requests such as GET /, sharing the connection's
// HTTP client.
func newProbeClient(restConfig *rest.Config, httpClient *http.Client) (rest.Interface, error) {
	cfg := rest.CopyConfig(restConfig)
	cfg.GroupVersion = &schema.GroupVersion{}
	cfg.APIPath = "/"
	cfg.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	return rest.UnversionedRESTClientForConfigAndClient(cfg, httpClient)
}
