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

package client

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/core/internal/runtime/registry"
)

// extension is a TLS test server answering each path with the handler registered for it, and
// recording what it was sent.
type extension struct {
	srv      *httptest.Server
	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	requests map[string]string // path?query -> body
}

func newExtension(t *testing.T) *extension {
	e := &extension{routes: map[string]http.HandlerFunc{}, requests: map[string]string{}}
	e.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.requests[r.URL.Path+"?"+r.URL.RawQuery] = string(body)
		h, ok := e.routes[r.URL.Path]
		e.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *extension) handle(path string, h http.HandlerFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.routes[path] = h
}

func (e *extension) answer(path string, v any) {
	e.handle(path, func(w http.ResponseWriter, _ *http.Request) { _ = json.NewEncoder(w).Encode(v) })
}

func (e *extension) caBundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.srv.Certificate().Raw})
}

func (e *extension) config(name string) *runtimev1.ExtensionConfig {
	return &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: e.srv.URL + "/prefix", CABundle: e.caBundle()}}}
}

const discoveryPath = "/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"

func hook(name, h string, timeout *int32, policy *hooksv1.FailurePolicy) hooksv1.ExtensionHandler {
	return hooksv1.ExtensionHandler{Name: name, RequestHook: hooksv1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: h},
		TimeoutSeconds: timeout, FailurePolicy: policy}
}

func newClient(objs ...corev1.Namespace) *Client {
	b := fake.NewClientBuilder()
	for i := range objs {
		b = b.WithObjects(&objs[i])
	}
	return New(registry.New(), b.Build())
}

// TestDiscover_ReturnsHandlersNamedAfterTheExtensionSortedAndDefaulted: the discovery request is
// upstream's (path, body, timeout query) and the handlers come back as status holds them.
func TestDiscover_ReturnsHandlersNamedAfterTheExtensionSortedAndDefaulted(t *testing.T) {
	ext := newExtension(t)
	ext.answer(discoveryPath, hooksv1.DiscoveryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess},
		Handlers: []hooksv1.ExtensionHandler{hook("generate-patches", hooksv1.GeneratePatches, nil, nil),
			hook("before-cluster-create", hooksv1.BeforeClusterCreate, ptr.To[int32](3), ptr.To(hooksv1.FailurePolicyIgnore))}})
	got, err := newClient().Discover(context.Background(), ext.config("my-ext"), time.Minute)
	require.NoError(t, err)
	require.Equal(t, []runtimev1.ExtensionHandler{
		{Name: "before-cluster-create.my-ext", RequestHook: runtimev1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: "BeforeClusterCreate"},
			TimeoutSeconds: ptr.To[int32](3), FailurePolicy: runtimev1.FailurePolicyIgnore},
		{Name: "generate-patches.my-ext", RequestHook: runtimev1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: "GeneratePatches"},
			TimeoutSeconds: ptr.To[int32](10), FailurePolicy: runtimev1.FailurePolicyFail},
	}, got)
	require.JSONEq(t, `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryRequest"}`, ext.requests[discoveryPath+"?timeout=1m0s"])
}

// TestDiscover_ErrorsNameTheExtensionAndWhatFailed: each way discovery can fail is a CallError
// of its own kind, naming the extension and the hook.
func TestDiscover_ErrorsNameTheExtensionAndWhatFailed(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.Addr().String()
	require.NoError(t, closed.Close())
	for _, tc := range []struct {
		name  string
		setup func(e *extension, cfg *runtimev1.ExtensionConfig)
		kind  ErrorKind
		says  string
	}{
		{"Unreachable", func(_ *extension, cfg *runtimev1.ExtensionConfig) {
			cfg.Spec.ClientConfig.URL = "https://" + closedAddr
		}, Unreachable, "connection refused"},
		{"WrongCA", func(_ *extension, cfg *runtimev1.ExtensionConfig) { cfg.Spec.ClientConfig.CABundle = otherCA(t) }, TLS, "certificate"},
		{"Malformed", func(e *extension, _ *runtimev1.ExtensionConfig) {
			e.handle(discoveryPath, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>not json")) })
		}, Malformed, "decoding the answer"},
		{"UnknownStatus", func(e *extension, _ *runtimev1.ExtensionConfig) {
			e.answer(discoveryPath, map[string]string{"status": "Maybe"})
		}, Malformed, `status "Maybe"`},
		{"Timeout", func(e *extension, _ *runtimev1.ExtensionConfig) {
			e.handle(discoveryPath, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		}, Timeout, "deadline"},
		{"NotFound", func(*extension, *runtimev1.ExtensionConfig) {}, BadStatus, "HTTP 404"},
		{"Failure", func(e *extension, _ *runtimev1.ExtensionConfig) {
			e.answer(discoveryPath, hooksv1.DiscoveryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusFailure, Message: "not ready"}})
		}, Failure, "not ready"},
		{"UnknownHook", func(e *extension, _ *runtimev1.ExtensionConfig) {
			e.answer(discoveryPath, hooksv1.DiscoveryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess},
				Handlers: []hooksv1.ExtensionHandler{hook("x", "BeforeEverything", nil, nil)}})
		}, Malformed, "unknown hook"},
		{"TimeoutTooLong", func(e *extension, _ *runtimev1.ExtensionConfig) {
			e.answer(discoveryPath, hooksv1.DiscoveryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess},
				Handlers: []hooksv1.ExtensionHandler{hook("x", hooksv1.BeforeClusterCreate, ptr.To[int32](31), nil)}})
		}, Malformed, "timeoutSeconds 31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newExtension(t)
			cfg := e.config("my-ext")
			tc.setup(e, cfg)
			_, err := newClient().Discover(context.Background(), cfg, 500*time.Millisecond)
			require.Error(t, err)
			require.Equal(t, tc.kind, KindOf(err), "%v", err)
			require.ErrorContains(t, err, "calling Discovery of extension my-ext: "+string(tc.kind))
			require.ErrorContains(t, err, tc.says)
		})
	}
}

// otherCA is a CA that signed nothing the test servers serve (httptest servers all share one
// certificate).
func otherCA(t *testing.T) []byte {
	t.Helper()
	_, ca, err := conversionwebhook.SelfSigned([]string{"127.0.0.1"}, time.Hour)
	require.NoError(t, err)
	return ca
}

// register discovers ext and registers its handlers, as the controller does.
func register(t *testing.T, c *Client, ext *extension, name string, handlers ...hooksv1.ExtensionHandler) *runtimev1.ExtensionConfig {
	t.Helper()
	ext.answer(discoveryPath, hooksv1.DiscoveryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}, Handlers: handlers})
	cfg := ext.config(name)
	got, err := c.Discover(context.Background(), cfg, time.Minute)
	require.NoError(t, err)
	cfg.Status.Handlers = got
	c.Registry.Register(cfg)
	return cfg
}

func retryResponse(seconds int32, msg string) hooksv1.BeforeClusterCreateResponse {
	return hooksv1.BeforeClusterCreateResponse{CommonRetryResponse: hooksv1.CommonRetryResponse{
		CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess, Message: msg}, RetryAfterSeconds: seconds}}
}

func beforeCreate(settings map[string]string) *hooksv1.BeforeClusterCreateRequest {
	return &hooksv1.BeforeClusterCreateRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeClusterCreate, "Request"),
		CommonRequest: hooksv1.CommonRequest{Settings: settings}}
}

// TestCallHandler_PostsToTheHandlerPathWithMergedSettings: the handler segment is the name the
// extension reported, the timeout is the handler's, and the caller's settings win.
func TestCallHandler_PostsToTheHandlerPathWithMergedSettings(t *testing.T) {
	c := newClient()
	ext := newExtension(t)
	ext.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/hold", retryResponse(5, "waiting"))
	reg := register(t, c, ext, "my-ext", hook("hold", hooksv1.BeforeClusterCreate, ptr.To[int32](4), nil))
	reg.Spec.Settings = map[string]string{"a": "ext", "b": "ext"}
	c.Registry.Register(reg)
	resp := &hooksv1.BeforeClusterCreateResponse{}
	note, err := c.CallHandler(context.Background(), hooksv1.BeforeClusterCreate, "hold.my-ext", "default", beforeCreate(map[string]string{"b": "caller"}), resp)
	require.NoError(t, err)
	require.Empty(t, note)
	require.Equal(t, int32(5), resp.RetryAfterSeconds)
	body := ext.requests["/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/hold?timeout=4s"]
	require.Contains(t, body, `"settings":{"a":"ext","b":"caller"}`)
}

// TestCallHandler_FailurePolicy: Ignore masks a timeout (and says so), Fail reports it naming
// the extension and the hook, and a Failure answer is never ignored.
func TestCallHandler_FailurePolicy(t *testing.T) {
	c := newClient()
	ext := newExtension(t)
	ext.handle("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/slow-ignore", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ext.handle("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/slow-fail", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ext.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/refuse", hooksv1.BeforeClusterCreateResponse{
		CommonRetryResponse: hooksv1.CommonRetryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusFailure, Message: "quota exceeded"}}})
	register(t, c, ext, "my-ext", hook("slow-ignore", hooksv1.BeforeClusterCreate, ptr.To[int32](1), ptr.To(hooksv1.FailurePolicyIgnore)),
		hook("slow-fail", hooksv1.BeforeClusterCreate, ptr.To[int32](1), nil),
		hook("refuse", hooksv1.BeforeClusterCreate, nil, ptr.To(hooksv1.FailurePolicyIgnore)))

	resp := &hooksv1.BeforeClusterCreateResponse{}
	note, err := c.CallHandler(context.Background(), hooksv1.BeforeClusterCreate, "slow-ignore.my-ext", "default", beforeCreate(nil), resp)
	require.NoError(t, err)
	require.Contains(t, note, "ignored (failurePolicy Ignore): calling BeforeClusterCreate handler slow-ignore.my-ext of extension my-ext: Timeout")
	require.Equal(t, hooksv1.ResponseStatusSuccess, resp.Status)

	_, err = c.CallHandler(context.Background(), hooksv1.BeforeClusterCreate, "slow-fail.my-ext", "default", beforeCreate(nil), &hooksv1.BeforeClusterCreateResponse{})
	require.Equal(t, Timeout, KindOf(err), "%v", err)
	require.ErrorContains(t, err, "calling BeforeClusterCreate handler slow-fail.my-ext of extension my-ext")

	_, err = c.CallHandler(context.Background(), hooksv1.BeforeClusterCreate, "refuse.my-ext", "default", beforeCreate(nil), &hooksv1.BeforeClusterCreateResponse{})
	require.Equal(t, Failure, KindOf(err), "%v", err)
	require.ErrorContains(t, err, "quota exceeded")
}

// TestCallAll_MatchesNamespacesAndAggregates: a handler whose selector does not match the
// namespace is not called; the lowest non-zero retryAfterSeconds wins, messages are joined.
func TestCallAll_MatchesNamespacesAndAggregates(t *testing.T) {
	c := newClient(corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}})
	a, b, other := newExtension(t), newExtension(t), newExtension(t)
	a.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/h", retryResponse(30, "backup running"))
	b.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/h", retryResponse(5, "dns pending"))
	other.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/h", retryResponse(1, "never called"))
	register(t, c, a, "a", hook("h", hooksv1.BeforeClusterCreate, nil, nil))
	register(t, c, b, "b", hook("h", hooksv1.BeforeClusterCreate, nil, nil))
	o := register(t, c, other, "other", hook("h", hooksv1.BeforeClusterCreate, nil, nil))
	o.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
	c.Registry.Register(o)

	resp := &hooksv1.BeforeClusterCreateResponse{}
	notes, err := c.CallAll(context.Background(), hooksv1.BeforeClusterCreate, "team-a", beforeCreate(nil), resp,
		func() hooksv1.Response { return &hooksv1.BeforeClusterCreateResponse{} })
	require.NoError(t, err)
	require.Empty(t, notes)
	require.Equal(t, int32(5), resp.RetryAfterSeconds)
	require.Equal(t, "backup running, dns pending", resp.Message)
	for path := range other.requests {
		require.False(t, strings.Contains(path, "beforeclustercreate"), "the unmatched extension was called: %s", path)
	}

	_, err = c.CallHandler(context.Background(), hooksv1.BeforeClusterCreate, "h.other", "team-a", beforeCreate(nil), &hooksv1.BeforeClusterCreateResponse{})
	require.ErrorIs(t, err, ErrNotMatched)
}
