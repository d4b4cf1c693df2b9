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
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/secret"
)

// Reconcile connects, health-checks and disconnects the workload cluster of one Cluster.
func (cc *ClusterCache) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.NamespacedName
	cluster := &clusterv1.Cluster{}
	if err := cc.client.Get(ctx, key, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			// No event: the controllers see the Cluster go away themselves.
			cc.forget(ctx, key, "the Cluster is gone", false)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("reading Cluster %s: %w", key, err)
	}
	if v := cc.opts.WatchFilterValue; v != "" && cluster.Labels[clusterv1.WatchLabel] != v {
		cc.forget(ctx, key, "the Cluster is not labelled for this manager's watch filter", true)
		return reconcile.Result{}, nil
	}
	if a := cc.accessor(key); a != nil && a.connected() {
		return cc.reconcileConnected(ctx, cluster, a)
	}
	return cc.reconcileDisconnected(ctx, cluster)
}

// reconcileConnected acts on the probe's verdict and on a changed or deleted kubeconfig Secret.
func (cc *ClusterCache) reconcileConnected(ctx context.Context, cluster *clusterv1.Cluster, a *accessor) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	key := client.ObjectKeyFromObject(cluster)

	if reason, unauthorized := a.pendingDisconnect(); reason != "" {
		log.Info("Disconnecting from the workload cluster", "reason", reason)
		if unauthorized {
			// The kubeconfig was most likely rotated: try the new one at once.
			a.disconnect(time.Time{})
			cc.notify(ctx, key, a, clusterEvent{disconnected: true})
			return cc.reconcileDisconnected(ctx, cluster)
		}
		a.disconnect(time.Now().Add(cc.opts.ConnectRetryInterval))
		cc.notify(ctx, key, a, clusterEvent{disconnected: true})
		return reconcile.Result{RequeueAfter: cc.opts.ConnectRetryInterval}, nil
	}

	conn := a.connection()
	if conn == nil { // dropped since Reconcile looked
		return cc.reconcileDisconnected(ctx, cluster)
	}
	// The informer's resource version answers "has the Secret changed?" without reading it;
	// only a change, or a Secret the informer does not know, costs a read.
	if version, ok := cc.cachedSecretVersion(ctx, key); ok && version == conn.secretVersion {
		cc.notify(ctx, key, a, clusterEvent{})
		return reconcile.Result{}, nil
	}
	kc, err := readKubeconfigSecret(ctx, cc.opts.SecretReader, key)
	switch {
	case errors.Is(err, errKubeconfigSecretNotFound):
		cc.forget(ctx, key, "the kubeconfig Secret is gone", true)
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, err
	case bytes.Equal(kc.data, conn.kubeconfig):
		conn.secretVersion = kc.resourceVersion
		cc.notify(ctx, key, a, clusterEvent{})
		return reconcile.Result{}, nil
	}
	log.Info("Disconnecting from the workload cluster", "reason", "the kubeconfig changed")
	a.disconnect(time.Time{})
	cc.notify(ctx, key, a, clusterEvent{disconnected: true})
	return cc.reconcileDisconnected(ctx, cluster)
}

// reconcileDisconnected connects when the Cluster is ready for it.
func (cc *ClusterCache) reconcileDisconnected(ctx context.Context, cluster *clusterv1.Cluster) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	key := client.ObjectKeyFromObject(cluster)

	if !cluster.DeletionTimestamp.IsZero() {
		log.V(4).Info("Not connecting to the workload cluster: the Cluster is being deleted")
		return reconcile.Result{}, nil
	}
	if cc.opts.ConnectOnlyWhenControlPlaneInitialized && !ptr.Deref(cluster.Status.Initialization.ControlPlaneInitialized, false) {
		log.V(4).Info("Not connecting to the workload cluster yet: the control plane is not initialized")
		return reconcile.Result{}, nil
	}
	kc, err := readKubeconfigSecret(ctx, cc.opts.SecretReader, key)
	if errors.Is(err, errKubeconfigSecretNotFound) {
		// The Secret informer wakes this reconciler when a Secret of the contract's type
		// appears; the retry finds one of another type, which the informer does not see.
		log.V(4).Info("Not connecting to the workload cluster yet: no kubeconfig Secret",
			"Secret", client.ObjectKey{Namespace: key.Namespace, Name: secret.Name(key.Name, secret.Kubeconfig)}.String())
		cc.forget(ctx, key, "there is no kubeconfig Secret", false)
		return reconcile.Result{RequeueAfter: cc.opts.ConnectRetryInterval}, nil
	}
	a := cc.accessorOrNew(key)
	if a == nil {
		return reconcile.Result{}, nil // shutting down
	}
	if wait := a.untilNextConnect(time.Now()); wait > 0 {
		cc.notify(ctx, key, a, clusterEvent{})
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	if err == nil {
		log.Info("Connecting to the workload cluster")
		err = cc.connect(ctx, a, kc)
	}
	if err != nil {
		if !errors.Is(err, errShuttingDown) {
			a.connectFailed(time.Now(), err, cc.opts.ConnectRetryInterval)
			log.Error(err, "Cannot connect to the workload cluster", "retryAfter", cc.opts.ConnectRetryInterval)
		}
		cc.notify(ctx, key, a, clusterEvent{})
		return reconcile.Result{RequeueAfter: cc.opts.ConnectRetryInterval}, nil
	}
	log.Info("Connected to the workload cluster")
	cc.notify(ctx, key, a, clusterEvent{connected: true})
	return reconcile.Result{}, nil
}

// connect builds a connection, publishes it, starts its probe and re-establishes the watches
// controllers added on earlier connections.
func (cc *ClusterCache) connect(ctx context.Context, a *accessor, kc kubeconfigSecret) error {
	conn, err := cc.newConnection(ctx, a.cluster, kc)
	if err != nil {
		return err
	}
	a.setConnection(conn, time.Now())
	if !cc.spawn(conn, func() { cc.runProbes(a, conn) }) {
		a.disconnect(time.Time{})
		return errShuttingDown
	}
	for _, in := range a.rememberedWatches() {
		if _, err := a.watch(in); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Cannot re-establish watch on the workload cluster", "watch", in.Name)
		}
	}
	return nil
}

// forget disconnects the Cluster, if connected, and drops everything kept for it. With
// notify, controllers hear about the disconnect.
func (cc *ClusterCache) forget(ctx context.Context, key client.ObjectKey, reason string, notify bool) {
	cc.mu.Lock()
	a := cc.accessors[key]
	delete(cc.accessors, key)
	cc.mu.Unlock()
	if a != nil && a.disconnect(time.Time{}) {
		ctrl.LoggerFrom(ctx).Info("Disconnected from the workload cluster", "reason", reason)
		if notify {
			cc.notify(ctx, key, a, clusterEvent{disconnected: true})
		}
	}
	for _, s := range cc.clusterSources() {
		s.forget(key)
	}
}

// notify tells every cluster source what happened in this reconcile; each decides whether
// its controller must hear about it.
func (cc *ClusterCache) notify(ctx context.Context, key client.ObjectKey, a *accessor, ev clusterEvent) {
	ev.lastProbeSuccess = a.healthCheckingState().LastProbeSuccessTime
	now := time.Now()
	for _, s := range cc.clusterSources() {
		s.send(ctx, key, now, ev)
	}
}
