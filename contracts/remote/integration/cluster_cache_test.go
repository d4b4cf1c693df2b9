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

package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
)

func TestClusterCache_ConnectsOnceTheKubeconfigSecretAppears(t *testing.T) {
	ns := env.CreateNamespace(t, "connect")
	tm := startManager(t, remote.Options{}, nil)
	cluster := createCluster(t, ns)
	node := createNode(t, "docker:////"+ns+"-worker-0")
	ctx := context.Background()

	// Without a kubeconfig there is nothing to connect to.
	_, err := tm.cc.GetClient(ctx, cluster)
	require.True(t, errors.Is(err, remote.ErrClusterNotConnected), "got %v", err)

	putKubeconfig(t, cluster, env.KubeConfig)
	c := waitConnected(t, tm.cc, cluster)

	nodes := &corev1.NodeList{}
	require.NoError(t, c.List(ctx, nodes))
	require.Contains(t, names(nodes.Items), node.Name)

	found, err := remote.ListNodesByProviderID(ctx, c, node.Spec.ProviderID)
	require.NoError(t, err)
	require.Equal(t, []string{node.Name}, names(found))

	// Secrets are read live through the cached client: a Secret created a moment ago is there.
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fresh"}}
	require.NoError(t, env.Client.Create(ctx, s))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(s), &corev1.Secret{}))

	uncached, err := tm.cc.GetUncachedClient(ctx, cluster)
	require.NoError(t, err)
	require.NoError(t, uncached.Get(ctx, client.ObjectKey{Name: node.Name}, &corev1.Node{}))

	restConfig, err := tm.cc.GetRESTConfig(ctx, cluster)
	require.NoError(t, err)
	require.Equal(t, float32(remote.DefaultQPS), restConfig.QPS)
	require.Equal(t, remote.DefaultBurst, restConfig.Burst)
	require.Equal(t, remote.DefaultTimeout, restConfig.Timeout)

	state := tm.cc.GetHealthCheckingState(cluster)
	require.True(t, state.Connected)
	require.False(t, state.LastProbeSuccessTime.IsZero())
	require.Zero(t, state.ConsecutiveFailures)
	require.NoError(t, state.LastProbeError)
}

func TestClusterCache_ReportsARejectedKubeconfigInTheHealthState(t *testing.T) {
	ns := env.CreateNamespace(t, "exec")
	tm := startManager(t, remote.Options{}, nil)
	cluster := createCluster(t, ns)

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["w"] = &clientcmdapi.Cluster{Server: env.Config.Host}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "credential-helper"}}
	cfg.Contexts["u@w"] = &clientcmdapi.Context{Cluster: "w", AuthInfo: "u"}
	cfg.CurrentContext = "u@w"
	data, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	putKubeconfig(t, cluster, data)

	envtest.WaitFor(t, wait, "the rejected kubeconfig to show in the health state", func() (bool, error) {
		s := tm.cc.GetHealthCheckingState(cluster)
		return s.LastProbeError != nil, nil
	})
	s := tm.cc.GetHealthCheckingState(cluster)
	require.False(t, s.Connected)
	require.Equal(t, 1, s.ConsecutiveFailures)
	require.ErrorContains(t, s.LastProbeError,
		fmt.Sprintf("kubeconfig of Cluster %s uses an exec credential plugin, which Capstan does not run", cluster))
}

func TestClusterCache_WatchDeliversNodeUpdatesAndRefusesSecretsConfigMapsPods(t *testing.T) {
	ns := env.CreateNamespace(t, "watch")
	updates := make(chan string, 100)
	var watcher controller.Controller
	tm := startManager(t, remote.Options{}, func(mgr ctrl.Manager, _ *remote.ClusterCache) {
		var err error
		watcher, err = controller.New("node-watcher", mgr, controller.Options{
			Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				return reconcile.Result{}, nil
			}),
		})
		require.NoError(t, err)
	})
	cluster := createCluster(t, ns)
	node := createNode(t, "")
	putKubeconfig(t, cluster, env.KubeConfig)
	waitConnected(t, tm.cc, cluster)

	in := remote.WatchInput{
		Name:         "nodes",
		Watcher:      watcher,
		Kind:         &corev1.Node{},
		EventHandler: recordUpdates(updates),
	}
	require.NoError(t, tm.cc.Watch(context.Background(), cluster, in))
	require.NoError(t, tm.cc.Watch(context.Background(), cluster, in), "a second Watch of the same name is a no-op")
	waitForUpdate(t, updates, node.Name)

	for _, kind := range []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Pod{}} {
		refused := in
		refused.Name = fmt.Sprintf("%T", kind)
		refused.Kind = kind
		err := tm.cc.Watch(context.Background(), cluster, refused)
		require.ErrorContains(t, err, "are never cached; read them with GetUncachedClient", "%T", kind)
	}
}

func TestClusterCache_ClusterSourceFiresOnConnect(t *testing.T) {
	ns := env.CreateNamespace(t, "source")
	seen := &recorder{}
	tm := startManager(t, remote.Options{}, func(mgr ctrl.Manager, cc *remote.ClusterCache) {
		err := ctrl.NewControllerManagedBy(mgr).
			Named("cluster-source-test").
			// For Clusters only to know when the controller runs; its own events carry the
			// Cluster's name, the source's carry a prefix.
			For(&clusterv1.Cluster{}).
			WatchesRawSource(cc.GetClusterSource("cluster-source-test", viaSource)).
			Complete(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
				seen.add(req.String())
				return reconcile.Result{}, nil
			}))
		require.NoError(t, err)
	})
	cluster := createCluster(t, ns)
	envtest.WaitFor(t, wait, "the test controller to run", func() (bool, error) {
		return seen.count(cluster.String()) > 0, nil
	})
	require.Zero(t, seen.count(viaSourceKey(cluster)))

	putKubeconfig(t, cluster, env.KubeConfig)
	envtest.WaitFor(t, wait, "the cluster source to fire on connect", func() (bool, error) {
		return seen.count(viaSourceKey(cluster)) == 1, nil
	})
	_, err := tm.cc.GetClient(context.Background(), cluster)
	require.NoError(t, err, "the source fires once the clients are there")
}

func TestClusterCache_DisconnectsWhenTheProbeFailsAndReconnectsWhenHealthy(t *testing.T) {
	ns := env.CreateNamespace(t, "probe")
	proxy := newAPIServerProxy(t)
	seen := &recorder{}
	updates := make(chan string, 100)
	var watcher controller.Controller
	tm := startManager(t, remote.Options{
		HealthProbe:          remote.HealthProbeOptions{Interval: 200 * time.Millisecond, Timeout: 2 * time.Second, FailureThreshold: 3},
		ConnectRetryInterval: 500 * time.Millisecond,
	}, func(mgr ctrl.Manager, cc *remote.ClusterCache) {
		var err error
		watcher, err = ctrl.NewControllerManagedBy(mgr).
			Named("probe-test").
			For(&clusterv1.Cluster{}).
			WatchesRawSource(cc.GetClusterSource("probe-test", viaSource)).
			Build(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
				seen.add(req.String())
				return reconcile.Result{}, nil
			}))
		require.NoError(t, err)
	})
	cluster := createCluster(t, ns)
	node := createNode(t, "")
	envtest.WaitFor(t, wait, "the test controller to run", func() (bool, error) {
		return seen.count(cluster.String()) > 0, nil
	})
	putKubeconfig(t, cluster, proxy.kubeconfig(t))
	waitConnected(t, tm.cc, cluster)
	require.NoError(t, tm.cc.Watch(context.Background(), cluster, remote.WatchInput{
		Name: "nodes", Watcher: watcher, Kind: &corev1.Node{}, EventHandler: recordUpdates(updates),
	}))
	waitForUpdate(t, updates, node.Name)

	proxy.set(unavailable)
	waitDisconnected(t, tm.cc, cluster)
	state := tm.cc.GetHealthCheckingState(cluster)
	require.False(t, state.Connected)
	require.GreaterOrEqual(t, state.ConsecutiveFailures, 3)
	require.Error(t, state.LastProbeError)
	envtest.WaitFor(t, wait, "the cluster source to fire on disconnect", func() (bool, error) {
		return seen.count(viaSourceKey(cluster)) == 2, nil // connect, disconnect
	})
	envtest.WaitFor(t, wait, "a reconnect attempt to fail while the API server is unavailable", func() (bool, error) {
		s := tm.cc.GetHealthCheckingState(cluster)
		return !s.Connected && s.ConsecutiveFailures > state.ConsecutiveFailures, nil
	})

	proxy.set(forward)
	waitConnected(t, tm.cc, cluster)
	envtest.WaitFor(t, wait, "the cluster source to fire on reconnect", func() (bool, error) {
		return seen.count(viaSourceKey(cluster)) == 3, nil
	})
	// The watch was re-established on the new connection without another Watch call.
	drainUpdates(updates)
	waitForUpdate(t, updates, node.Name)
}

func TestClusterCache_DisconnectsAtOnceOnUnauthorized(t *testing.T) {
	ns := env.CreateNamespace(t, "unauthorized")
	proxy := newAPIServerProxy(t)
	tm := startManager(t, remote.Options{
		// Only Unauthorized can disconnect within this test, and reconnects stay rare.
		HealthProbe:          remote.HealthProbeOptions{Interval: 200 * time.Millisecond, FailureThreshold: 1000},
		ConnectRetryInterval: time.Hour,
	}, nil)
	cluster := createCluster(t, ns)
	putKubeconfig(t, cluster, proxy.kubeconfig(t))
	waitConnected(t, tm.cc, cluster)

	proxy.set(unauthorized)
	waitDisconnected(t, tm.cc, cluster)
	state := tm.cc.GetHealthCheckingState(cluster)
	// One failed probe, then the immediate reconnect with the (unchanged) kubeconfig failed too.
	require.LessOrEqual(t, state.ConsecutiveFailures, 2)
	require.True(t, apierrors.IsUnauthorized(state.LastProbeError), "got %v", state.LastProbeError)
}

func TestClusterCache_ReconnectsWhenTheKubeconfigChangesAndForgetsTheClusterWhenItIsDeleted(t *testing.T) {
	ns := env.CreateNamespace(t, "rotate")
	proxy := newAPIServerProxy(t)
	tm := startManager(t, remote.Options{}, nil)
	cluster := createCluster(t, ns)
	putKubeconfig(t, cluster, env.KubeConfig)
	waitConnected(t, tm.cc, cluster)

	putKubeconfig(t, cluster, proxy.kubeconfig(t))
	envtest.WaitFor(t, wait, "the ClusterCache to reconnect with the new kubeconfig", func() (bool, error) {
		cfg, err := tm.cc.GetRESTConfig(context.Background(), cluster)
		return err == nil && cfg.Host == proxy.srv.URL, err
	})

	require.NoError(t, env.Client.Delete(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: cluster.Namespace, Name: cluster.Name + "-kubeconfig",
	}}))
	waitDisconnected(t, tm.cc, cluster)
	require.Equal(t, remote.HealthCheckingState{}, tm.cc.GetHealthCheckingState(cluster), "the Cluster is forgotten")
}

func TestClusterCache_DeletingTheClusterRemovesTheAccessorAndStopsItsGoroutines(t *testing.T) {
	ns := env.CreateNamespace(t, "delete")
	tm := startManager(t, remote.Options{}, nil)
	require.Zero(t, connectionGoroutines(), "an earlier test left connection goroutines running")
	cluster := createCluster(t, ns)
	putKubeconfig(t, cluster, env.KubeConfig)
	waitConnected(t, tm.cc, cluster)
	// The probe starts right after the clients are published.
	envtest.WaitFor(t, wait, "one cache and one probe goroutine for the connection", func() (bool, error) {
		return connectionGoroutines() == 2, nil
	})

	require.NoError(t, env.Client.Delete(context.Background(), &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{
		Namespace: cluster.Namespace, Name: cluster.Name,
	}}))
	waitDisconnected(t, tm.cc, cluster)
	require.Equal(t, remote.HealthCheckingState{}, tm.cc.GetHealthCheckingState(cluster), "the accessor is gone")
	envtest.WaitFor(t, wait, "the connection goroutines to return", func() (bool, error) {
		return connectionGoroutines() == 0, nil
	})
}

func TestClusterCache_StoppingTheManagerStopsEveryConnection(t *testing.T) {
	ns := env.CreateNamespace(t, "stop")
	tm := startManager(t, remote.Options{}, nil)
	first, second := createCluster(t, ns), createCluster(t, ns)
	putKubeconfig(t, first, env.KubeConfig)
	putKubeconfig(t, second, env.KubeConfig)
	waitConnected(t, tm.cc, first)
	waitConnected(t, tm.cc, second)
	envtest.WaitFor(t, wait, "a cache and a probe goroutine per connection", func() (bool, error) {
		return connectionGoroutines() == 4, nil
	})

	tm.stop(t)
	require.Zero(t, connectionGoroutines(), "the manager returned with connection goroutines still running")
	_, err := tm.cc.GetClient(context.Background(), first)
	require.True(t, errors.Is(err, remote.ErrClusterNotConnected), "got %v", err)
}

// viaSource maps a Cluster to a request whose name says it came from the cluster source.
func viaSource(_ context.Context, cluster client.ObjectKey) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: cluster.Namespace, Name: "via-source-" + cluster.Name}}}
}

func viaSourceKey(cluster client.ObjectKey) string {
	return cluster.Namespace + "/via-source-" + cluster.Name
}

// recordUpdates is a handler that reports the names of updated objects.
func recordUpdates(updates chan<- string) handler.TypedEventHandler[client.Object, reconcile.Request] {
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			select {
			case updates <- e.ObjectNew.GetName():
			default:
			}
		},
	}
}

// waitForUpdate changes the Node until the handler reports an update of it: the watch starts
// asynchronously, so a single change could come before its informer.
func waitForUpdate(t *testing.T, updates chan string, node string) {
	t.Helper()
	envtest.WaitFor(t, wait, "an update event for Node "+node, func() (bool, error) {
		for {
			select {
			case name := <-updates:
				if name == node {
					return true, nil
				}
			default:
				bumpNode(t, node)
				return false, nil
			}
		}
	})
}

func drainUpdates(updates chan string) {
	for {
		select {
		case <-updates:
		default:
			return
		}
	}
}

func names(nodes []corev1.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

// The waiting itself is covered by TestReconcile_WaitsForTheControlPlaneWhenAskedTo; this test
// shows that the status change wakes the ClusterCache.
func TestClusterCache_ConnectsOnceTheControlPlaneIsInitializedWhenAskedToWait(t *testing.T) {
	ns := env.CreateNamespace(t, "cpinit")
	tm := startManager(t, remote.Options{ConnectOnlyWhenControlPlaneInitialized: true}, nil)
	cluster := createCluster(t, ns)
	putKubeconfig(t, cluster, env.KubeConfig)

	c := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(context.Background(), cluster, c))
	patch := client.MergeFrom(c.DeepCopy())
	c.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	require.NoError(t, env.Client.Status().Patch(context.Background(), c, patch))
	waitConnected(t, tm.cc, cluster)
}

// The Secret informer sees only the contract's Secret type; a kubeconfig Secret of another
// type (written by hand, say) is found by the connect retry.
func TestClusterCache_ConnectsWithAKubeconfigSecretOfAnotherType(t *testing.T) {
	ns := env.CreateNamespace(t, "opaque")
	tm := startManager(t, remote.Options{ConnectRetryInterval: time.Second}, nil)
	cluster := createCluster(t, ns)
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster.Name + "-kubeconfig"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"value": env.KubeConfig},
	}
	require.NoError(t, env.Client.Create(context.Background(), s))
	waitConnected(t, tm.cc, cluster)
}
