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
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/secret"
	"capstan.dev/contracts/testing/crds"
)

// wait is the deadline of every wait in this package: generous for a 2-core machine under
// -race, and never reached when things work.
const wait = 60 * time.Second

// testManager is a running controller-runtime manager with a ClusterCache registered.
type testManager struct {
	mgr ctrl.Manager
	cc  *remote.ClusterCache

	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan error
}

// startManager starts a manager like a provider's, with the ClusterCache reading kubeconfig
// Secrets live. setup registers test controllers before the manager starts. The manager is
// stopped when the test ends (or earlier, by stop).
func startManager(t *testing.T, opts remote.Options, setup func(mgr ctrl.Manager, cc *remote.ClusterCache)) *testManager {
	t.Helper()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:  env.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		// Every test starts its own manager with the same controller names.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		Client: client.Options{Cache: &client.CacheOptions{
			DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}},
		}},
	})
	require.NoError(t, err)
	opts.SecretReader = mgr.GetAPIReader()
	cc, err := remote.SetupWithManager(mgr, opts)
	require.NoError(t, err)
	if setup != nil {
		setup(mgr, cc)
	}

	ctx, cancel := context.WithCancel(context.Background())
	tm := &testManager{mgr: mgr, cc: cc, cancel: cancel, done: make(chan error, 1)}
	go func() { tm.done <- mgr.Start(ctx) }()
	t.Cleanup(func() { tm.stop(t) })
	return tm
}

// stop stops the manager and waits until Start has returned.
func (tm *testManager) stop(t *testing.T) {
	t.Helper()
	tm.stopOnce.Do(func() {
		tm.cancel()
		select {
		case err := <-tm.done:
			require.NoError(t, err)
		case <-time.After(wait):
			t.Errorf("the manager did not stop within %s", wait)
		}
	})
}

// createCluster creates a minimal Cluster; nothing else reconciles it in these tests. It is
// deleted when the test ends: namespaces never finish terminating without
// kube-controller-manager, and a later test's ClusterCache must not connect to it.
func createCluster(t *testing.T, ns string) client.ObjectKey {
	t.Helper()
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-" + rand.String(5)},
		Spec:       clusterv1.ClusterSpec{Paused: ptr.To(false), InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "infra")},
	}
	require.NoError(t, env.Client.Create(context.Background(), c))
	t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), c)) })
	return client.ObjectKeyFromObject(c)
}

// putKubeconfig creates or replaces the Cluster's <cluster>-kubeconfig Secret.
func putKubeconfig(t *testing.T, cluster client.ObjectKey, kubeconfig []byte) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: cluster.Namespace,
		Name:      secret.Name(cluster.Name, secret.Kubeconfig),
	}}
	_, err := ctrl.CreateOrUpdate(context.Background(), env.Client, s, func() error {
		s.Type = clusterv1.ClusterSecretType // the contract's type, which the ClusterCache informs on
		s.Data = map[string][]byte{secret.KubeconfigDataName: kubeconfig}
		return nil
	})
	require.NoError(t, err)
}

// createNode creates a Node in the envtest apiserver (no kubelet runs: it is only an object)
// and deletes it when the test ends.
func createNode(t *testing.T, providerID string) *corev1.Node {
	t.Helper()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-" + rand.String(6)},
		Spec:       corev1.NodeSpec{ProviderID: providerID},
	}
	require.NoError(t, env.Client.Create(context.Background(), n))
	t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), n)) })
	return n
}

// bumpNode changes a label of the Node so that watchers see an update.
func bumpNode(t *testing.T, name string) {
	t.Helper()
	n := &corev1.Node{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Name: name}, n))
	patch := client.MergeFrom(n.DeepCopy())
	n.Labels = map[string]string{"bumped": rand.String(6)}
	require.NoError(t, env.Client.Patch(context.Background(), n, patch))
}

func waitConnected(t *testing.T, cc *remote.ClusterCache, cluster client.ObjectKey) client.Client {
	t.Helper()
	var c client.Client
	envtest.WaitFor(t, wait, fmt.Sprintf("the ClusterCache to connect to Cluster %s", cluster), func() (bool, error) {
		var err error
		c, err = cc.GetClient(context.Background(), cluster)
		return err == nil, err
	})
	return c
}

func waitDisconnected(t *testing.T, cc *remote.ClusterCache, cluster client.ObjectKey) {
	t.Helper()
	envtest.WaitFor(t, wait, fmt.Sprintf("the ClusterCache to disconnect from Cluster %s", cluster), func() (bool, error) {
		_, err := cc.GetClient(context.Background(), cluster)
		if err == nil {
			return false, nil
		}
		if !errors.Is(err, remote.ErrClusterNotConnected) {
			return false, fmt.Errorf("GetClient failed with something other than ErrClusterNotConnected: %w", err)
		}
		return true, nil
	})
}

// connectionGoroutines counts the goroutines that run workload caches and health probes, by
// their function names in a dump of all stacks.
func connectionGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	dump := string(buf)
	return strings.Count(dump, "remote.(*connection).runCache(") + strings.Count(dump, "remote.(*ClusterCache).runProbes(")
}

// recorder collects requests seen by a test controller.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
}

func (r *recorder) count(s string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.seen {
		if x == s {
			n++
		}
	}
	return n
}
