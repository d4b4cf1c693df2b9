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

package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

func do(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, bytes.NewBufferString(body))
	require.NoError(t, err)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(out)
}

// TestExtension_DiscoversEveryHookUnderUpstreamsHandlerNames: the lifecycle hooks and the
// topology mutation ones.
func TestExtension_DiscoversEveryHookUnderUpstreamsHandlerNames(t *testing.T) {
	srv := httptest.NewTLSServer(New())
	defer srv.Close()
	code, body := do(t, srv, http.MethodPost, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery", `{}`)
	require.Equal(t, http.StatusOK, code)
	var resp hooksv1.DiscoveryResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	require.Equal(t, hooksv1.ResponseStatusSuccess, resp.Status)
	require.Len(t, resp.Handlers, len(hooksv1.LifecycleHooks())+4)
	require.Equal(t, "generate-patches", resp.Handlers[len(resp.Handlers)-4].Name)
	require.Equal(t, "discover-variables", resp.Handlers[len(resp.Handlers)-2].Name)
	require.Equal(t, "generate-upgrade-plan", resp.Handlers[len(resp.Handlers)-1].Name)
	require.Equal(t, "before-cluster-create", resp.Handlers[0].Name)
	require.Equal(t, "after-control-plane-initialized", HandlerName(hooksv1.AfterControlPlaneInitialized))
}

// TestExtension_HooksAllowUntilSwitchedToBlock: a hook answers Success/0 by default, the answer
// set through the control endpoint once set, and Success/0 again once reset.
func TestExtension_HooksAllowUntilSwitchedToBlock(t *testing.T) {
	srv := httptest.NewTLSServer(New())
	defer srv.Close()
	const path = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/before-cluster-create"
	_, body := do(t, srv, http.MethodPost, path, `{"kind":"BeforeClusterCreateRequest","cluster":{}}`)
	require.JSONEq(t, `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"BeforeClusterCreateResponse","status":"Success","retryAfterSeconds":0}`, body)

	code, _ := do(t, srv, http.MethodPut, "/control/hooks/BeforeClusterCreate", `{"retryAfterSeconds":7,"message":"waiting for DNS"}`)
	require.Equal(t, http.StatusOK, code)
	_, body = do(t, srv, http.MethodPost, path, `{"kind":"BeforeClusterCreateRequest"}`)
	require.Contains(t, body, `"retryAfterSeconds":7`)
	require.Contains(t, body, `"message":"waiting for DNS"`)
	_, got := do(t, srv, http.MethodGet, "/control/requests/BeforeClusterCreate", "")
	require.JSONEq(t, `{"kind":"BeforeClusterCreateRequest"}`, got)

	do(t, srv, http.MethodDelete, "/control/hooks/BeforeClusterCreate", "")
	_, body = do(t, srv, http.MethodPost, path, `{}`)
	require.Contains(t, body, `"retryAfterSeconds":0`)

	_, body = do(t, srv, http.MethodPost, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/aftercontrolplaneinitialized/after-control-plane-initialized", `{}`)
	require.NotContains(t, body, "retryAfterSeconds", "a non-blocking hook answers no retryAfterSeconds")
	code, _ = do(t, srv, http.MethodPost, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/other-name", `{}`)
	require.Equal(t, http.StatusNotFound, code)
}

// TestExtension_DiscoveryModes: malformed and failure discovery answers, for the core's tests.
func TestExtension_DiscoveryModes(t *testing.T) {
	srv := httptest.NewTLSServer(New())
	defer srv.Close()
	do(t, srv, http.MethodPut, "/control/discovery", `{"mode":"malformed"}`)
	_, body := do(t, srv, http.MethodPost, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery", `{}`)
	require.False(t, json.Valid([]byte(body)))
	do(t, srv, http.MethodPut, "/control/discovery", `{"mode":"failure"}`)
	_, body = do(t, srv, http.MethodPost, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery", `{}`)
	require.Contains(t, body, `"status":"Failure"`)
	code, _ := do(t, srv, http.MethodPut, "/control/discovery", `{"mode":"sometimes"}`)
	require.Equal(t, http.StatusBadRequest, code)
}
