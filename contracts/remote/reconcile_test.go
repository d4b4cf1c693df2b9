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
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// newTestClusterCache is a ClusterCache over a fake management cluster, without a manager:
// enough to drive Reconcile through the decisions that need no workload cluster.
func newTestClusterCache(t *testing.T, opts Options, objs ...client.Object) *ClusterCache {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	require.NoError(t, clusterv1.AddToScheme(scheme))
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	opts.SecretReader = c
	opts, err := opts.defaulted()
	require.NoError(t, err)
	root, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &ClusterCache{
		opts: opts, scheme: scheme, client: c, kicks: &kickSource{},
		root: root, cancelRoot: cancel, accessors: map[client.ObjectKey]*accessor{},
	}
}

func clusterObject(mutate ...func(*clusterv1.Cluster)) *clusterv1.Cluster {
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: testCluster.Namespace, Name: testCluster.Name}}
	for _, m := range mutate {
		m(c)
	}
	return c
}

func kubeconfigSecretObject(data []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testCluster.Namespace, Name: testCluster.Name + "-kubeconfig"},
		Data:       map[string][]byte{"value": data},
	}
}

func reconcileTestCluster(t *testing.T, cc *ClusterCache) reconcile.Result {
	t.Helper()
	res, err := cc.Reconcile(context.Background(), reconcile.Request{NamespacedName: testCluster})
	require.NoError(t, err)
	return res
}

// The Secret informer sees only the contract's Secret type: a kubeconfig Secret of another
// type is found by a retry every ConnectRetryInterval.
func TestReconcile_RetriesWithoutAKubeconfigSecret(t *testing.T) {
	cc := newTestClusterCache(t, Options{}, clusterObject())
	require.Equal(t, reconcile.Result{RequeueAfter: DefaultConnectRetryInterval}, reconcileTestCluster(t, cc))
	require.Nil(t, cc.accessor(testCluster))
}

func TestReconcile_WaitsForTheControlPlaneWhenAskedTo(t *testing.T) {
	exec := kubeconfig(t, &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "x"}}, nil)
	cc := newTestClusterCache(t, Options{ConnectOnlyWhenControlPlaneInitialized: true}, clusterObject(), kubeconfigSecretObject(exec))
	require.Equal(t, reconcile.Result{}, reconcileTestCluster(t, cc))
	require.Nil(t, cc.accessor(testCluster), "no connect attempt before the control plane is initialized")

	cc = newTestClusterCache(t, Options{ConnectOnlyWhenControlPlaneInitialized: true}, clusterObject(func(c *clusterv1.Cluster) {
		c.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	}), kubeconfigSecretObject(exec))
	reconcileTestCluster(t, cc)
	require.Equal(t, 1, cc.GetHealthCheckingState(testCluster).ConsecutiveFailures, "a connect was attempted")
}

func TestReconcile_DoesNotConnectToAClusterBeingDeleted(t *testing.T) {
	deleting := clusterObject(func(c *clusterv1.Cluster) {
		c.Finalizers = []string{clusterv1.ClusterFinalizer}
		c.DeletionTimestamp = ptr.To(metav1.Now())
	})
	exec := kubeconfig(t, &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "x"}}, nil)
	cc := newTestClusterCache(t, Options{}, deleting, kubeconfigSecretObject(exec))
	require.Equal(t, reconcile.Result{}, reconcileTestCluster(t, cc))
	require.Nil(t, cc.accessor(testCluster))
}

func TestReconcile_RetriesAFailedConnectOnlyAfterTheRetryInterval(t *testing.T) {
	exec := kubeconfig(t, &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "x"}}, nil)
	cc := newTestClusterCache(t, Options{ConnectRetryInterval: time.Hour}, clusterObject(), kubeconfigSecretObject(exec))

	require.Equal(t, reconcile.Result{RequeueAfter: time.Hour}, reconcileTestCluster(t, cc))
	state := cc.GetHealthCheckingState(testCluster)
	require.False(t, state.Connected)
	require.Equal(t, 1, state.ConsecutiveFailures)
	require.ErrorContains(t, state.LastProbeError, "uses an exec credential plugin")

	// An event in between (say the Cluster's status changed) does not cause another attempt.
	res := reconcileTestCluster(t, cc)
	require.Greater(t, res.RequeueAfter, 59*time.Minute)
	require.Equal(t, 1, cc.GetHealthCheckingState(testCluster).ConsecutiveFailures)
}

func TestReconcile_ForgetsAClusterThatIsGone(t *testing.T) {
	cc := newTestClusterCache(t, Options{})
	cc.accessorOrNew(testCluster).connectFailed(t0, context.DeadlineExceeded, time.Minute)
	require.Equal(t, reconcile.Result{}, reconcileTestCluster(t, cc))
	require.Nil(t, cc.accessor(testCluster))
}

func TestReconcile_IgnoresClustersOutsideTheWatchFilter(t *testing.T) {
	exec := kubeconfig(t, &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "x"}}, nil)
	cc := newTestClusterCache(t, Options{WatchFilterValue: "team-a"}, clusterObject(), kubeconfigSecretObject(exec))
	require.Equal(t, reconcile.Result{}, reconcileTestCluster(t, cc))
	require.Nil(t, cc.accessor(testCluster))
}
