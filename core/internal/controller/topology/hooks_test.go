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

package topology

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
)

// beforeCreateExtension is an extension whose BeforeClusterCreate handler "hold" answers
// retryAfterSeconds as set, recording the Clusters it was asked about.
type beforeCreateExtension struct {
	srv      *httptest.Server
	retry    atomic.Int32
	mu       sync.Mutex
	clusters []string
}

func newBeforeCreateExtension(t *testing.T) *beforeCreateExtension {
	e := &beforeCreateExtension{}
	e.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/hold" {
			http.NotFound(w, r)
			return
		}
		req := &hooksv1.BeforeClusterCreateRequest{}
		if err := json.NewDecoder(r.Body).Decode(req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		e.clusters = append(e.clusters, req.Cluster.Namespace+"/"+req.Cluster.Name)
		e.mu.Unlock()
		_ = json.NewEncoder(w).Encode(hooksv1.BeforeClusterCreateResponse{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeClusterCreate, "Response"),
			CommonRetryResponse: hooksv1.CommonRetryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess,
				Message: "waiting for DNS"}, RetryAfterSeconds: e.retry.Load()}})
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// registerFor registers the extension's handler in a new registry, for the namespace ns only (so
// Clusters other tests left behind are not held).
func (e *beforeCreateExtension) registerFor(ns string) *runtimeclient.Client {
	rc := runtimeclient.New(registry.New(), env.Client)
	rc.Registry.Register(&runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "hook-ext"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{URL: e.srv.URL,
				CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.srv.Certificate().Raw})},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: []runtimev1.ExtensionHandler{{Name: "hold.hook-ext",
			RequestHook:    runtimev1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: hooksv1.BeforeClusterCreate},
			TimeoutSeconds: ptr.To[int32](10), FailurePolicy: runtimev1.FailurePolicyFail}}},
	})
	return rc
}

// TestTopology_BeforeClusterCreateHoldsTheTopologyUntilTheHookAllows: while the extension's
// BeforeClusterCreate handler answers retryAfterSeconds > 0, no topology object is created and
// TopologyReconciled says which hook holds and why; once it answers 0 the topology is created.
func TestTopology_BeforeClusterCreateHoldsTheTopologyUntilTheHookAllows(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-hook")
	ext := newBeforeCreateExtension(t)
	ext.retry.Store(1)
	c := topologyCluster(ns)
	calls := &envtest.CallCounter{Key: client.ObjectKeyFromObject(c), Type: &clusterv1.Cluster{}}
	startControllerWith(t, nil, calls, ext.registerFor(ns))
	quickStart(t, ns)
	require.NoError(t, env.Client.Create(t.Context(), c))

	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Following hooks are blocking create: BeforeClusterCreate: waiting for DNS")
	blocked := env.WaitForEvents(t, timeout, got, ReasonHookBlocking, 1)
	require.Equal(t, "Following hooks are blocking create: BeforeClusterCreate: waiting for DNS", blocked[0].Note)
	// The hook is asked again every second; the hold, unchanged, is recorded once.
	gets, _ := calls.Snapshot()
	envtest.WaitFor(t, timeout, "two more reconciles while the hook holds", func() (bool, error) {
		now, _ := calls.Snapshot()
		return now >= gets+2, nil
	})
	_, writes := calls.Snapshot()
	require.Equal(t, 1, countPrefix(writes, "event "+ReasonHookBlocking+" "), "writes: %v", writes)
	require.Equal(t, clusterv1.ClusterTopologyReconciledClusterCreatingReason, conditionReason(got))
	require.False(t, got.Spec.InfrastructureRef.IsDefined(), "no InfrastructureCluster while the hook holds")
	require.False(t, got.Spec.ControlPlaneRef.IsDefined(), "no ControlPlane while the hook holds")
	ext.mu.Lock()
	require.Contains(t, ext.clusters, ns+"/c1", "the request carries the Cluster")
	ext.mu.Unlock()

	ext.retry.Store(0)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.True(t, got.Spec.InfrastructureRef.IsDefined())
	require.True(t, got.Spec.ControlPlaneRef.IsDefined())
}

// TestTopology_AHoldingHookIsNotAskedAgainBeforeItsRetryAfterSeconds: as upstream's hook cache,
// a Cluster reconciled again within a blocking answer's retryAfterSeconds (here on every change
// of an annotation) keeps the hold and its message without calling the extension; once that time
// has passed, the hook is asked again and its new answer lets the creation go on.
func TestTopology_AHoldingHookIsNotAskedAgainBeforeItsRetryAfterSeconds(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-hook")
	ext := newBeforeCreateExtension(t)
	ext.retry.Store(600)
	c := topologyCluster(ns)
	calls := &envtest.CallCounter{Key: client.ObjectKeyFromObject(c), Type: &clusterv1.Cluster{}}
	var clock atomic.Int64
	clock.Store(time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC).Unix())
	startControllerAt(t, nil, calls, ext.registerFor(ns), func() time.Time { return time.Unix(clock.Load(), 0) })
	quickStart(t, ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Following hooks are blocking create: BeforeClusterCreate: waiting for DNS")
	asked := func() int {
		ext.mu.Lock()
		defer ext.mu.Unlock()
		return len(ext.clusters)
	}
	require.Equal(t, 1, asked())

	ext.retry.Store(0)
	clock.Add(599)
	for i := range 3 {
		calls.Poke(t, env.Client, c.DeepCopy(), fmt.Sprint("within-", i))
	}
	require.Equal(t, 1, asked(), "not asked again within its retryAfterSeconds")
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Following hooks are blocking create: BeforeClusterCreate: waiting for DNS")
	require.False(t, got.Spec.InfrastructureRef.IsDefined(), "still held")

	clock.Add(1)
	calls.Poke(t, env.Client, c.DeepCopy(), "after")
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.True(t, got.Spec.InfrastructureRef.IsDefined())
	require.Equal(t, 2, asked(), "asked again once the time had passed")
}

// TestTopology_AnUnreachableBeforeClusterCreateExtensionIsNamed: a handler that cannot be called
// (failurePolicy Fail) holds the creation too, and TopologyReconciled names the extension, the
// hook and what failed.
func TestTopology_AnUnreachableBeforeClusterCreateExtensionIsNamed(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-hook")
	ext := newBeforeCreateExtension(t)
	rc := ext.registerFor(ns)
	ext.srv.Close()
	startControllerWith(t, nil, nil, rc)
	quickStart(t, ns)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"calling BeforeClusterCreate handler hold.hook-ext of extension hook-ext: Unreachable")
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditionReason(got))
	require.Contains(t, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Message, "fix the Runtime Extension or its ExtensionConfig")
	require.False(t, got.Spec.InfrastructureRef.IsDefined())
}

// countPrefix counts the strings that start with prefix.
func countPrefix(all []string, prefix string) int {
	n := 0
	for _, s := range all {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}
