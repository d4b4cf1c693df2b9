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
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// TestGeneratePatches_IgnoredMalformedAnswerPatchesNothing: with failurePolicy Ignore, an answer
// that cannot be decoded whole gives no items at all (not those decoded before the error);
// with Fail it is an error naming the handler and the hook.
func TestGeneratePatches_IgnoredMalformedAnswerPatchesNothing(t *testing.T) {
	c := newClient()
	ext := newExtension(t)
	half := func(w http.ResponseWriter, _ *http.Request) {
		// encoding/json fills items before it finds that message is not a string.
		_, _ = w.Write([]byte(`{"status":"Success","items":[{"uid":"a","patchType":"JSONPatch","patch":"W10="}],"message":7}`))
	}
	ext.handle("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/lenient", half)
	ext.handle("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/strict", half)
	register(t, c, ext, "my-ext", hook("lenient", hooksv1.GeneratePatches, nil, ptr.To(hooksv1.FailurePolicyIgnore)),
		hook("strict", hooksv1.GeneratePatches, nil, nil))
	req := &hooksv1.GeneratePatchesRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.GeneratePatches, "Request")}

	resp, err := c.GeneratePatches(context.Background(), "lenient.my-ext", "default", req)
	require.NoError(t, err)
	require.Equal(t, hooksv1.ResponseStatusSuccess, resp.Status)
	require.Empty(t, resp.Items)

	_, err = c.GeneratePatches(context.Background(), "strict.my-ext", "default", req)
	require.Equal(t, Malformed, KindOf(err), "%v", err)
	require.ErrorContains(t, err, "calling GeneratePatches handler strict.my-ext of extension my-ext")
}
