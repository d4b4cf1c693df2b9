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

package extensionconfig

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
	runtimeclient "capstan.dev/core/internal/runtime/client"
)

func getExt(t *testing.T, name string) *runtimev1.ExtensionConfig {
	t.Helper()
	got := &runtimev1.ExtensionConfig{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Name: name}, got))
	return got
}

// TestExtensionConfig_DiscoversTheTestExtensionAsTheMarkerGrantedUser runs the controller (and
// the runtime client's Namespace reads) with only what their kubebuilder:rbac markers grant,
// against the test extension process: its handlers land sorted in status and in the registry,
// and a handler called through the registry answers as the extension was switched to, for a
// namespace the selector matches only.
func TestExtensionConfig_DiscoversTheTestExtensionAsTheMarkerGrantedUser(t *testing.T) {
	ctx := context.Background()
	rc := startController(t, env.UserFromRBACMarkers(t, "capstan-extensionconfig-rbac-test", "controller.go", "../../runtime/client/client.go"), nil)
	ext := coretest.RunTestExtension(t, env, "e2e-ext")
	got := waitDiscovered(t, "e2e-ext", metav1.ConditionTrue)
	require.Len(t, got.Status.Handlers, len(hooksv1.LifecycleHooks())+testExtensionMutationHooks)
	require.True(t, sort.SliceIsSorted(got.Status.Handlers, func(i, j int) bool { return got.Status.Handlers[i].Name < got.Status.Handlers[j].Name }))
	require.Equal(t, runtimev1.ExtensionHandler{Name: "before-cluster-create.e2e-ext",
		RequestHook:    runtimev1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: hooksv1.BeforeClusterCreate},
		TimeoutSeconds: ptrTo(int32(10)), FailurePolicy: runtimev1.FailurePolicyFail}, got.Status.Handlers[4])
	require.Equal(t, runtimev1.ExtensionConfigDiscoveredReason, got.Status.Conditions[0].Reason)

	matching := env.CreateNamespace(t, "ext-on")
	other := env.CreateNamespace(t, "ext-off")
	ns := &corev1.Namespace{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: matching}, ns))
	envtest.Update(t, env.Client, ns, func() { ns.Labels["runtime-ext"] = "on" })
	envtest.Update(t, env.Client, got, func() {
		got.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"runtime-ext": "on"}}
	})
	waitDiscovered(t, "e2e-ext", metav1.ConditionTrue)
	ext.Control(t, "PUT", "/control/hooks/BeforeClusterCreate", `{"retryAfterSeconds":5,"message":"holding for the test"}`)

	envtest.WaitFor(t, timeout, "the handler to be callable for the matching namespace", func() (bool, error) {
		resp := &hooksv1.BeforeClusterCreateResponse{}
		req := &hooksv1.BeforeClusterCreateRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeClusterCreate, "Request")}
		if _, err := rc.CallHandler(ctx, hooksv1.BeforeClusterCreate, "before-cluster-create.e2e-ext", matching, req, resp); err != nil {
			return false, err
		}
		return resp.RetryAfterSeconds == 5 && resp.Message == "holding for the test", nil
	})
	_, err := rc.CallHandler(ctx, hooksv1.BeforeClusterCreate, "before-cluster-create.e2e-ext", other,
		&hooksv1.BeforeClusterCreateRequest{}, &hooksv1.BeforeClusterCreateResponse{})
	require.ErrorIs(t, err, runtimeclient.ErrNotMatched)
}

func ptrTo[T any](v T) *T { return &v }

// otherCA is a CA that signed nothing the extension serves.
func otherCA(t *testing.T) []byte {
	t.Helper()
	_, ca, err := conversionwebhook.SelfSigned([]string{"127.0.0.1"}, time.Hour)
	require.NoError(t, err)
	return ca
}

// TestExtensionConfig_EachFailureIsAConditionNamingTheExtension walks one extension through a
// wrong CA, a malformed discovery answer, a discovery that outlives its timeout and an
// unreachable URL: each is Discovered=False (NotDiscovered) naming the extension, the hook and
// what failed, and unregisters the handlers; each fix (a spec change) discovers it again.
func TestExtensionConfig_EachFailureIsAConditionNamingTheExtension(t *testing.T) {
	rc := startController(t, nil, nil)
	ext := coretest.RunTestExtension(t, env, "faulty-ext")
	good := waitDiscovered(t, "faulty-ext", metav1.ConditionTrue)
	goodCA, goodURL := good.Spec.ClientConfig.CABundle, good.Spec.ClientConfig.URL
	registered := func(want bool) {
		envtest.WaitFor(t, timeout, "the registry to follow", func() (bool, error) {
			_, ok := rc.Registry.Get("before-cluster-delete.faulty-ext")
			return ok == want, nil
		})
	}
	registered(true)
	fail := func(mutate func(*runtimev1.ExtensionConfig), kind runtimeclient.ErrorKind, says string) {
		t.Helper()
		cur := getExt(t, "faulty-ext")
		envtest.Update(t, env.Client, cur, func() { mutate(cur) })
		got := waitDiscovered(t, "faulty-ext", metav1.ConditionFalse,
			"Error in discovery: calling Discovery of extension faulty-ext: "+string(kind), says)
		require.Equal(t, runtimev1.ExtensionConfigNotDiscoveredReason, got.Status.Conditions[0].Reason)
		require.Len(t, got.Status.Handlers, len(hooksv1.LifecycleHooks())+testExtensionMutationHooks, "status keeps the last discovered handlers")
		registered(false)
	}
	recover := func(mutate func(*runtimev1.ExtensionConfig)) {
		t.Helper()
		cur := getExt(t, "faulty-ext")
		envtest.Update(t, env.Client, cur, func() { mutate(cur) })
		waitDiscovered(t, "faulty-ext", metav1.ConditionTrue)
		registered(true)
	}

	fail(func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = otherCA(t) }, runtimeclient.TLS, "certificate")
	recover(func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = goodCA })

	ext.Control(t, "PUT", "/control/discovery", `{"mode":"malformed"}`)
	fail(func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"attempt": "malformed"} }, runtimeclient.Malformed, "decoding the answer")

	ext.Control(t, "PUT", "/control/discovery", `{"mode":"hang"}`)
	fail(func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"attempt": "hang"} }, runtimeclient.Timeout, "deadline exceeded")

	ext.Control(t, "PUT", "/control/discovery", `{"mode":"normal"}`)
	closed := "https://" + envtest.FreeLoopbackAddr(t)
	fail(func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.URL = closed }, runtimeclient.Unreachable, "connection refused")
	recover(func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.URL = goodURL })
}

// TestExtensionConfig_SteadyStateWritesNothing: once discovered, a reconcile (triggered by a
// label change, which is no new generation) neither calls discovery again nor writes.
func TestExtensionConfig_SteadyStateWritesNothing(t *testing.T) {
	calls := &envtest.CallCounter{Type: &runtimev1.ExtensionConfig{}, Key: client.ObjectKey{Name: "steady-ext"}}
	startController(t, nil, calls)
	ext := coretest.RunTestExtension(t, env, "steady-ext")
	got := waitDiscovered(t, "steady-ext", metav1.ConditionTrue)
	// A discovery now would fail and flip the condition: the steady reconcile must not run one.
	ext.Control(t, "PUT", "/control/discovery", `{"mode":"failure"}`)
	gets, before := calls.Snapshot()
	envtest.Update(t, env.Client, got, func() { got.Labels = map[string]string{"touched": "yes"} })
	envtest.WaitFor(t, timeout, "a reconcile after the label change", func() (bool, error) {
		g, _ := calls.Snapshot()
		return g > gets, nil
	})
	_, after := calls.Snapshot()
	require.Equal(t, before, after, "steady state: the reconcile wrote nothing")
	cur := getExt(t, "steady-ext")
	require.Equal(t, metav1.ConditionTrue, cur.Status.Conditions[0].Status, "no discovery ran: %s", strings.Join(after, ", "))
}

// TestExtensionConfig_PausedIsNotDiscovered: with the cluster.x-k8s.io/paused annotation the
// controller only sets Paused (no discovery, no handlers); without it the extension is discovered.
func TestExtensionConfig_PausedIsNotDiscovered(t *testing.T) {
	coretest.RunTestExtension(t, env, "paused-ext")
	cur := getExt(t, "paused-ext")
	envtest.Update(t, env.Client, cur, func() { cur.Annotations = map[string]string{clusterv1.PausedAnnotation: ""} })
	rc := startController(t, nil, nil)
	envtest.WaitFor(t, timeout, "ExtensionConfig paused-ext to be Paused", func() (bool, error) {
		got := getExt(t, "paused-ext")
		return len(got.Status.Conditions) > 0 && got.Status.Conditions[0].Type == clusterv1.PausedCondition &&
			got.Status.Conditions[0].Status == metav1.ConditionTrue, nil
	})
	got := getExt(t, "paused-ext")
	require.Len(t, got.Status.Conditions, 1, "no Discovered condition while paused")
	require.Empty(t, got.Status.Handlers)
	_, registered := rc.Registry.Get("before-cluster-create.paused-ext")
	require.False(t, registered)

	envtest.Update(t, env.Client, got, func() { delete(got.Annotations, clusterv1.PausedAnnotation) })
	got = waitDiscovered(t, "paused-ext", metav1.ConditionTrue)
	require.Len(t, got.Status.Handlers, len(hooksv1.LifecycleHooks())+testExtensionMutationHooks)
}

// testExtensionMutationHooks is how many handlers the test extension serves beside the lifecycle
// hooks: generate-patches, validate-topology, discover-variables, generate-upgrade-plan.
const testExtensionMutationHooks = 4
