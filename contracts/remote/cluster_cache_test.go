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
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestOptions_DefaultsAreUpstreamsValues(t *testing.T) {
	o, err := Options{SecretReader: fake.NewClientBuilder().Build()}.defaulted()
	require.NoError(t, err)
	require.Equal(t, ClientOptions{QPS: 20, Burst: 30, Timeout: 10 * time.Second, UserAgent: "capstan-cluster-cache"}, o.Client)
	require.Equal(t, HealthProbeOptions{Interval: 10 * time.Second, Timeout: 5 * time.Second, FailureThreshold: 5}, o.HealthProbe)
	require.Equal(t, 30*time.Second, o.ConnectRetryInterval)
	require.False(t, o.ConnectOnlyWhenControlPlaneInitialized)
}

func TestOptions_RejectsAMissingReaderAndNegativeValues(t *testing.T) {
	_, err := Options{}.defaulted()
	require.ErrorContains(t, err, "Options.SecretReader is required")
	_, err = Options{SecretReader: fake.NewClientBuilder().Build(), HealthProbe: HealthProbeOptions{Interval: -time.Second}}.defaulted()
	require.ErrorContains(t, err, "Options.HealthProbe.Interval must not be negative")
}

func TestClusterCache_GettersAnswerNotConnectedForAnUnknownCluster(t *testing.T) {
	cc := &ClusterCache{accessors: map[client.ObjectKey]*accessor{}}
	_, err := cc.GetClient(context.Background(), testCluster)
	require.True(t, errors.Is(err, ErrClusterNotConnected))
	require.ErrorContains(t, err, "workload cluster of Cluster ns1/c1: connection to the workload cluster is down")
	_, err = cc.GetUncachedClient(context.Background(), testCluster)
	require.True(t, errors.Is(err, ErrClusterNotConnected))
	_, err = cc.GetRESTConfig(context.Background(), testCluster)
	require.True(t, errors.Is(err, ErrClusterNotConnected))
	require.Equal(t, HealthCheckingState{}, cc.GetHealthCheckingState(testCluster))
}

func TestKubeconfigSecretToCluster_MapsOnlyKubeconfigSecrets(t *testing.T) {
	meta := func(name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: name}}
	}
	require.Equal(t, []reconcile.Request{{NamespacedName: testCluster}}, kubeconfigSecretToCluster(context.Background(), meta("c1-kubeconfig")))
	require.Empty(t, kubeconfigSecretToCluster(context.Background(), meta("c1-ca")))
	require.Empty(t, kubeconfigSecretToCluster(context.Background(), meta("-kubeconfig")))
}

func TestKeepNameAndVersion_DropsEverythingElse(t *testing.T) {
	m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns1", Name: "c1-kubeconfig", UID: "u", ResourceVersion: "7",
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"big": "x"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}},
	}}
	out, err := keepNameAndVersion(m)
	require.NoError(t, err)
	require.Equal(t, metav1.ObjectMeta{Namespace: "ns1", Name: "c1-kubeconfig", UID: "u", ResourceVersion: "7"},
		out.(*metav1.PartialObjectMetadata).ObjectMeta)
}

func TestListNodesByProviderID_UsesTheIndex(t *testing.T) {
	node := func(name, providerID string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	}
	c := fake.NewClientBuilder().
		WithIndex(&corev1.Node{}, NodeProviderIDIndex, nodeProviderID).
		WithObjects(node("a", "docker:////a"), node("b", "docker:////b"), node("unregistered", "")).
		Build()

	nodes, err := ListNodesByProviderID(context.Background(), c, "docker:////b")
	require.NoError(t, err)
	require.Len(t, nodes, 1)
	require.Equal(t, "b", nodes[0].Name)

	nodes, err = ListNodesByProviderID(context.Background(), c, "docker:////gone")
	require.NoError(t, err)
	require.Empty(t, nodes)

	_, err = ListNodesByProviderID(context.Background(), c, "")
	require.ErrorContains(t, err, "the providerID is empty")
}

func TestConnectionClient_AnswersNotConnectedOnceTheConnectionEnded(t *testing.T) {
	connCtx, disconnect := context.WithCancel(context.Background())
	c := &connectionClient{Client: fake.NewClientBuilder().Build(), connCtx: connCtx, timeout: time.Second, cluster: testCluster}

	require.NoError(t, c.List(context.Background(), &corev1.NodeList{}))
	disconnect()
	err := c.List(context.Background(), &corev1.NodeList{})
	require.True(t, errors.Is(err, ErrClusterNotConnected), "got %v", err)
	err = c.Get(context.Background(), client.ObjectKey{Name: "n"}, &corev1.Node{})
	require.True(t, errors.Is(err, ErrClusterNotConnected), "got %v", err)
}

// The metadata informer behind kubeconfig rotation must not hold every Secret of the
// management cluster (scenario 6 of make bench): the API server sends it only Secrets of the
// contract's type.
func TestSecretVersionsCache_InformsOnlyOnSecretsOfTheContractsType(t *testing.T) {
	mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		MapperProvider: func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return meta.NewDefaultRESTMapper(nil), nil },
	})
	require.NoError(t, err)
	sel := secretVersionsCacheOptions(mgr).DefaultFieldSelector
	require.NotNil(t, sel, "the informer must be narrowed on the server")
	require.True(t, sel.Matches(fields.Set{"type": string(clusterv1.ClusterSecretType)}))
	require.False(t, sel.Matches(fields.Set{"type": string(corev1.SecretTypeOpaque)}))
	require.False(t, sel.Matches(fields.Set{"type": string(corev1.SecretTypeServiceAccountToken)}))
}
