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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/require"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

const mutationPath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/"

// TestExtension_GeneratePatchesWritesImageRepository: the kubeadm templates get imageRepository
// (the item's override winning over the Cluster's value), an image is prefixed, an item the
// handler has nothing for gets no patch, and the uids are echoed.
func TestExtension_GeneratePatchesWritesImageRepository(t *testing.T) {
	srv := httptest.NewTLSServer(New())
	defer srv.Close()
	kcp := `{"apiVersion":"controlplane.cluster.x-k8s.io/v1beta2","kind":"KubeadmControlPlaneTemplate","spec":{"template":{"spec":{"kubeadmConfigSpec":{}}}}}`
	kct := `{"apiVersion":"bootstrap.cluster.x-k8s.io/v1beta2","kind":"KubeadmConfigTemplate","spec":{"template":{"spec":{"preKubeadmCommands":["true"]}}}}`
	dmt := `{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta2","kind":"DevMachineTemplate","spec":{"template":{"spec":{"image":"node:v1"}}}}`
	other := `{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta2","kind":"DevClusterTemplate","spec":{"template":{"spec":{}}}}`
	req := `{"kind":"GeneratePatchesRequest","variables":[{"name":"imageRepository","value":"reg.example"}],"items":[
		{"uid":"a","object":` + kcp + `},
		{"uid":"b","object":` + kct + `,"variables":[{"name":"imageRepository","value":"md.example"}]},
		{"uid":"c","object":` + dmt + `},
		{"uid":"d","object":` + other + `}]}`
	code, body := do(t, srv, http.MethodPost, mutationPath+"generatepatches/generate-patches", req)
	require.Equal(t, http.StatusOK, code)
	resp := &hooksv1.GeneratePatchesResponse{}
	require.NoError(t, json.Unmarshal([]byte(body), resp))
	require.Equal(t, hooksv1.ResponseStatusSuccess, resp.Status, resp.Message)
	require.Len(t, resp.Items, 3)
	want := map[string]string{
		"a": `{"spec":{"template":{"spec":{"kubeadmConfigSpec":{"clusterConfiguration":{"imageRepository":"reg.example"}}}}}}`,
		"b": `{"spec":{"template":{"spec":{"preKubeadmCommands":["true","echo imageRepository=md.example"]}}}}`,
		"c": `{"spec":{"template":{"spec":{"image":"reg.example/node:v1"}}}}`,
	}
	objects := map[string]string{"a": kcp, "b": kct, "c": dmt}
	for _, it := range resp.Items {
		require.Equal(t, hooksv1.JSONPatchType, it.PatchType)
		p, err := jsonpatch.DecodePatch(it.Patch)
		require.NoError(t, err)
		out, err := p.Apply([]byte(objects[string(it.UID)]))
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, json.Unmarshal(out, &got))
		spec, _ := json.Marshal(map[string]any{"spec": got["spec"]})
		require.JSONEq(t, want[string(it.UID)], string(spec), "item %s", it.UID)
	}

	// Without the variable, the setting of the same name is used.
	_, body = do(t, srv, http.MethodPost, mutationPath+"generatepatches/generate-patches",
		`{"settings":{"imageRepository":"set.example"},"items":[{"uid":"a","object":`+kcp+`}]}`)
	require.Contains(t, body, `"uid":"a"`)
	resp = &hooksv1.GeneratePatchesResponse{}
	require.NoError(t, json.Unmarshal([]byte(body), resp))
	require.Contains(t, string(resp.Items[0].Patch), `"imageRepository":"set.example"`)

	do(t, srv, http.MethodPut, "/control/hooks/GeneratePatches", `{"unknownUID":true}`)
	_, body = do(t, srv, http.MethodPost, mutationPath+"generatepatches/generate-patches", req)
	require.Contains(t, body, `"uid":"not-a-request-uid"`)
}

// TestExtension_ValidateTopologyAndDiscoverVariables: validate-topology allows until switched to
// Failure; discover-variables answers imageRepository's schema.
func TestExtension_ValidateTopologyAndDiscoverVariables(t *testing.T) {
	srv := httptest.NewTLSServer(New())
	defer srv.Close()
	_, body := do(t, srv, http.MethodPost, mutationPath+"validatetopology/validate-topology", `{"items":[]}`)
	require.Contains(t, body, `"status":"Success"`)
	do(t, srv, http.MethodPut, "/control/hooks/ValidateTopology", `{"status":"Failure","message":"too small"}`)
	_, body = do(t, srv, http.MethodPost, mutationPath+"validatetopology/validate-topology", `{"items":[]}`)
	require.Contains(t, body, `"status":"Failure"`)
	require.Contains(t, body, `"message":"too small"`)

	_, body = do(t, srv, http.MethodPost, mutationPath+"discovervariables/discover-variables", `{}`)
	resp := &hooksv1.DiscoverVariablesResponse{}
	require.NoError(t, json.Unmarshal([]byte(body), resp))
	require.Equal(t, hooksv1.ResponseStatusSuccess, resp.Status)
	require.Len(t, resp.Variables, 1)
	require.Equal(t, ImageRepositoryVariable, resp.Variables[0].Name)
	require.Equal(t, "string", resp.Variables[0].Schema.OpenAPIV3Schema.Type)
}

// TestExtension_GenerateUpgradePlanStepsThroughEveryMinor.
func TestExtension_GenerateUpgradePlanStepsThroughEveryMinor(t *testing.T) {
	srv := httptest.NewTLSServer(New())
	defer srv.Close()
	_, body := do(t, srv, http.MethodPost, mutationPath+"generateupgradeplan/generate-upgrade-plan",
		`{"fromControlPlaneKubernetesVersion":"v1.37.2","toKubernetesVersion":"v1.40.1"}`)
	require.JSONEq(t, `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"GenerateUpgradePlanResponse","status":"Success",
		"controlPlaneUpgrades":[{"version":"v1.38.0"},{"version":"v1.39.0"},{"version":"v1.40.1"}]}`, body)
	_, body = do(t, srv, http.MethodPost, mutationPath+"generateupgradeplan/generate-upgrade-plan", `{"toKubernetesVersion":"v1.40.1"}`)
	require.Contains(t, body, `"status":"Failure"`)
}
