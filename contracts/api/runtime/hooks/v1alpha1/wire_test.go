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

package v1alpha1

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// messages are every wire message, by kind; testdata/<kind>.json is a document written with
// upstream's field names (api/runtime/hooks/v1alpha1 of Cluster API).
var messages = map[string]any{
	"DiscoveryRequest": &DiscoveryRequest{}, "DiscoveryResponse": &DiscoveryResponse{},
	"BeforeClusterCreateRequest": &BeforeClusterCreateRequest{}, "BeforeClusterCreateResponse": &BeforeClusterCreateResponse{},
	"AfterControlPlaneInitializedRequest":  &AfterControlPlaneInitializedRequest{},
	"AfterControlPlaneInitializedResponse": &AfterControlPlaneInitializedResponse{},
	"BeforeClusterUpgradeRequest":          &BeforeClusterUpgradeRequest{}, "BeforeClusterUpgradeResponse": &BeforeClusterUpgradeResponse{},
	"BeforeControlPlaneUpgradeRequest": &BeforeControlPlaneUpgradeRequest{}, "BeforeControlPlaneUpgradeResponse": &BeforeControlPlaneUpgradeResponse{},
	"AfterControlPlaneUpgradeRequest": &AfterControlPlaneUpgradeRequest{}, "AfterControlPlaneUpgradeResponse": &AfterControlPlaneUpgradeResponse{},
	"BeforeWorkersUpgradeRequest": &BeforeWorkersUpgradeRequest{}, "BeforeWorkersUpgradeResponse": &BeforeWorkersUpgradeResponse{},
	"AfterWorkersUpgradeRequest": &AfterWorkersUpgradeRequest{}, "AfterWorkersUpgradeResponse": &AfterWorkersUpgradeResponse{},
	"AfterClusterUpgradeRequest": &AfterClusterUpgradeRequest{}, "AfterClusterUpgradeResponse": &AfterClusterUpgradeResponse{},
	"BeforeClusterDeleteRequest": &BeforeClusterDeleteRequest{}, "BeforeClusterDeleteResponse": &BeforeClusterDeleteResponse{},
	"GeneratePatchesRequest": &GeneratePatchesRequest{}, "GeneratePatchesResponse": &GeneratePatchesResponse{},
	"ValidateTopologyRequest": &ValidateTopologyRequest{}, "ValidateTopologyResponse": &ValidateTopologyResponse{},
	"DiscoverVariablesRequest": &DiscoverVariablesRequest{}, "DiscoverVariablesResponse": &DiscoverVariablesResponse{},
	"GenerateUpgradePlanRequest": &GenerateUpgradePlanRequest{}, "GenerateUpgradePlanResponse": &GenerateUpgradePlanResponse{},
}

// TestWireFormat_GoldenDocumentsRoundTrip decodes each upstream-format document strictly (a field
// name Capstan does not know fails), encodes it again and requires the same JSON: every field
// upstream sends is understood and written back under upstream's name, and nothing is added.
func TestWireFormat_GoldenDocumentsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	require.Len(t, files, len(messages), "one golden document per message")
	for kind, msg := range messages {
		t.Run(kind, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join("testdata", kind+".json"))
			require.NoError(t, err)
			dec := json.NewDecoder(bytes.NewReader(golden))
			dec.DisallowUnknownFields()
			into := reflect.New(reflect.TypeOf(msg).Elem()).Interface()
			require.NoError(t, dec.Decode(into))
			out, err := json.Marshal(into)
			require.NoError(t, err)
			var want, got any
			require.NoError(t, json.Unmarshal(golden, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			require.Empty(t, cmp.Diff(want, got), "re-encoded %s differs (-golden +encoded)", kind)
			require.Equal(t, kind, want.(map[string]any)["kind"])
		})
	}
}

// TestWireFormat_BlockingResponsesAlwaysCarryRetryAfterSeconds: upstream serializes
// retryAfterSeconds even when 0 (Success with 0 means "go on"), extensions may rely on it.
func TestWireFormat_BlockingResponsesAlwaysCarryRetryAfterSeconds(t *testing.T) {
	out, err := json.Marshal(BeforeClusterCreateResponse{TypeMeta: TypeMeta(BeforeClusterCreate, "Response"),
		CommonRetryResponse: CommonRetryResponse{CommonResponse: CommonResponse{Status: ResponseStatusSuccess}}})
	require.NoError(t, err)
	require.JSONEq(t, `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"BeforeClusterCreateResponse","status":"Success","retryAfterSeconds":0}`, string(out))
}

// TestHandlerPath_IsUpstreamsPath: the hook and handler segments are lower-cased and joined
// below the extension's own URL path.
func TestHandlerPath_IsUpstreamsPath(t *testing.T) {
	require.Equal(t, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/before-cluster-create",
		HandlerPath("", BeforeClusterCreate, "before-cluster-create"))
	require.Equal(t, "/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/gen",
		HandlerPath("/prefix/", GeneratePatches, "Gen"))
	require.Equal(t, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery", DiscoveryPath(""))
	require.True(t, IsBlocking(AfterClusterUpgrade))
	require.False(t, IsBlocking(AfterControlPlaneInitialized))
	require.False(t, IsKnownHook(Discovery))
}
