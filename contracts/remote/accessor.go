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
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// accessor is one Cluster's entry in the ClusterCache: its connection, if any, its health and
// the watches controllers asked for.
//
// Only the ClusterCache's reconciler connects and disconnects, and controller-runtime never
// reconciles one Cluster on two workers at once, so connect and disconnect need no lock of
// their own. The lock guards the state that getters, Watch and the probe goroutine share,
// and is never held while building a connection or probing: GetClient must not wait on a
// slow workload cluster.
type accessor struct {
	cluster client.ObjectKey

	mu     sync.RWMutex
	conn   *connection
	health healthState
	// nextConnect is the earliest time of the next connect attempt, so a failing cluster is
	// retried every ConnectRetryInterval rather than on every event.
	nextConnect time.Time
	// watches are re-established on every new connection: a controller adds a watch once
	// and keeps receiving events across reconnects.
	watches map[string]WatchInput
}

func newAccessor(cluster client.ObjectKey) *accessor {
	return &accessor{cluster: cluster, watches: map[string]WatchInput{}}
}

// connection returns the live connection, or nil.
func (a *accessor) connection() *connection {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.conn
}

func (a *accessor) connected() bool { return a.connection() != nil }

// setConnection publishes a new connection; a successful connect counts as a successful probe.
func (a *accessor) setConnection(conn *connection, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.conn = conn
	a.health.recordSuccess(now)
}

// connectFailed records a failed connect; it counts as a failed probe so that the health state
// shows why a Cluster has no connection.
func (a *accessor) connectFailed(now time.Time, err error, retry time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.health.recordFailure(now, err)
	a.nextConnect = now.Add(retry)
}

// untilNextConnect is how long a connect attempt must still wait.
func (a *accessor) untilNextConnect(now time.Time) time.Duration {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.nextConnect.Sub(now)
}

// disconnect drops the connection, if any, and waits until its cache and probe goroutines have
// returned. The next connect may not happen before nextConnect. It reports whether there was
// a connection.
func (a *accessor) disconnect(nextConnect time.Time) bool {
	a.mu.Lock()
	conn := a.conn
	a.conn = nil
	a.health.disconnectReason = ""
	a.nextConnect = nextConnect
	a.mu.Unlock()
	if conn == nil {
		return false
	}
	conn.stop()
	return true
}

// recordProbe records a probe of conn; a probe of a connection that was replaced meanwhile is
// ignored. It reports whether the connection must be dropped.
func (a *accessor) recordProbe(conn *connection, now time.Time, err error, threshold int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != conn {
		return false
	}
	return a.health.recordProbe(now, err, threshold)
}

// pendingDisconnect returns why the probe wants the connection dropped ("" if it does not) and
// whether the reason was an Unauthorized answer.
func (a *accessor) pendingDisconnect() (reason string, unauthorized bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.health.disconnectReason, a.health.unauthorized
}

func (a *accessor) healthCheckingState() HealthCheckingState {
	a.mu.RLock()
	defer a.mu.RUnlock()
	s := a.health.HealthCheckingState
	s.Connected = a.conn != nil
	return s
}

// watch starts in on the live connection unless a watch of that name already runs there, and
// remembers it for later connections. It reports whether it started a watch.
func (a *accessor) watch(in WatchInput) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn == nil {
		return false, fmt.Errorf("starting watch %s: %w", in.Name, notConnected(a.cluster))
	}
	if a.conn.watches[in.Name] {
		return false, nil
	}
	// Watch only hands the source to the controller, which starts it without blocking (the
	// informer is created in a goroutine), so holding the lock here is brief.
	src := &connectionSource{
		kind:    source.Kind(a.conn.cache, in.Kind, in.EventHandler, in.Predicates...),
		connCtx: a.conn.ctx,
		name:    in.Name,
	}
	if err := in.Watcher.Watch(src); err != nil {
		return false, fmt.Errorf("starting watch %s on the workload cluster of Cluster %s: %w", in.Name, a.cluster, err)
	}
	a.conn.watches[in.Name] = true
	a.watches[in.Name] = in
	return true, nil
}

// rememberedWatches returns the watches to re-establish on a new connection.
func (a *accessor) rememberedWatches() []WatchInput {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]WatchInput, 0, len(a.watches))
	for _, in := range a.watches {
		out = append(out, in)
	}
	return out
}
