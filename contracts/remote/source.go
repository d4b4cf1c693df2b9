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
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ClusterSourceOption configures GetClusterSource.
type ClusterSourceOption func(*clusterSource)

// WatchForProbeFailure makes the source also fire once when the health probe of a Cluster
// has not succeeded for d, e.g. so the Cluster controller can turn its RemoteConnectionProbe
// condition false after a grace period.
func WatchForProbeFailure(d time.Duration) ClusterSourceOption {
	return func(s *clusterSource) { s.probeFailureAfter = append(s.probeFailureAfter, d) }
}

// clusterEvent says what happened to a Cluster's connection in one reconcile.
type clusterEvent struct {
	connected, disconnected bool
	lastProbeSuccess        time.Time
}

// clusterSource is a controller source fed by the ClusterCache's reconciler.
//
// It adds requests to the controller's queue directly instead of going through a channel:
// a send on a channel blocks until the controller reads it, and a controller that is slow to
// start, or never starts, must not stall the ClusterCache. Events before the controller
// started are dropped; a starting controller reconciles all its objects anyway.
type clusterSource struct {
	controllerName    string
	mapFunc           func(context.Context, client.ObjectKey) []reconcile.Request
	probeFailureAfter []time.Duration

	mu       sync.Mutex
	queue    workqueue.TypedRateLimitingInterface[reconcile.Request]
	lastSent map[client.ObjectKey]time.Time
}

// Start implements source.Source.
func (s *clusterSource) Start(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queue != nil {
		return fmt.Errorf("%s was started twice: call GetClusterSource once per controller", s)
	}
	s.queue = q
	return nil
}

func (s *clusterSource) String() string {
	return "ClusterCache source for controller " + s.controllerName
}

// reasons lists why the source should fire for the Cluster now; empty means it should not.
func (s *clusterSource) reasons(cluster client.ObjectKey, now time.Time, ev clusterEvent) []string {
	var reasons []string
	if ev.connected {
		reasons = append(reasons, "connected")
	}
	if ev.disconnected {
		reasons = append(reasons, "disconnected")
	}
	for _, after := range s.probeFailureAfter {
		if probeFailureDue(now, ev.lastProbeSuccess, s.lastSent[cluster], after) {
			reasons = append(reasons, fmt.Sprintf("health probe has not succeeded for %s", after))
		}
	}
	return reasons
}

// send enqueues the controller's requests for the Cluster when ev calls for it.
func (s *clusterSource) send(ctx context.Context, cluster client.ObjectKey, now time.Time, ev clusterEvent) {
	s.mu.Lock()
	q := s.queue
	reasons := s.reasons(cluster, now, ev)
	if q == nil || len(reasons) == 0 {
		s.mu.Unlock()
		return
	}
	s.lastSent[cluster] = now
	s.mu.Unlock()

	ctrl.LoggerFrom(ctx).V(4).Info("Notifying controller", "controller", s.controllerName,
		"reasons", strings.Join(reasons, ", "))
	for _, req := range s.mapFunc(ctx, cluster) {
		q.Add(req)
	}
}

// forget drops what the source remembers about a Cluster that is gone.
func (s *clusterSource) forget(cluster client.ObjectKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.lastSent, cluster)
}

// kickSource lets the probe goroutines ask the ClusterCache's own controller to reconcile a
// Cluster, so every decision (disconnect, reconnect, notify) is taken in Reconcile, where
// controller-runtime guarantees one worker per Cluster.
type kickSource struct {
	mu    sync.Mutex
	queue workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// Start implements source.Source.
func (k *kickSource) Start(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.queue = q
	return nil
}

func (k *kickSource) String() string { return "ClusterCache health probes" }

func (k *kickSource) kick(cluster client.ObjectKey) {
	k.mu.Lock()
	q := k.queue
	k.mu.Unlock()
	if q != nil {
		q.Add(reconcile.Request{NamespacedName: cluster})
	}
}
