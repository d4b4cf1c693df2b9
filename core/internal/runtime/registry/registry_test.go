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

package registry

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// A manager's registry says it is not Ready until it has registered what the ExtensionConfigs'
// statuses hold: before that, an empty ForHook must not be read as "no extension serves it".
func TestRegistry_AManagersRegistryIsReadyOnlyAfterItsWarmUp(t *testing.T) {
	require.True(t, New().Ready(), "a registry filled by hand is complete")
	r := NewAwaitingWarmUp()
	require.False(t, r.Ready())
	ext := runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "ext"}, Status: runtimev1.ExtensionConfigStatus{
		Handlers: []runtimev1.ExtensionHandler{{Name: "before-cluster-delete.ext",
			RequestHook: runtimev1.GroupVersionHook{APIVersion: "hooks.runtime.cluster.x-k8s.io/v1alpha1", Hook: "BeforeClusterDelete"}}}}}
	r.WarmUp([]runtimev1.ExtensionConfig{ext})
	require.True(t, r.Ready())
	require.Len(t, r.ForHook("BeforeClusterDelete"), 1, "the handler discovered before the manager started is registered")
}
