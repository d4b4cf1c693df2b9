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

package v1beta2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestTemplates_SpecIsImmutableMetadataIsNot edits each docker template kind in place on the
// real API server: a change, an addition or a removal in spec.template.spec is refused with a
// message saying to create a new template, as upstream's webhooks refuse it; the template's
// metadata (its own and the one cloned onto each object) stays editable.
func TestTemplates_SpecIsImmutableMetadataIsNot(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		kind string
		obj  func(ns string) client.Object
		// spec is a valid spec.template.spec; edit and add change it, remove drops a field.
		spec map[string]any
		edit []string
		add  []string
	}{
		{
			kind: "DockerMachineTemplate",
			obj:  func(ns string) client.Object { return newDockerMachineTemplate(ns) },
			spec: map[string]any{"customImage": "capstan/node:v1.37.2", "bootstrapTimeout": "5m"},
			edit: []string{"customImage"}, add: []string{"preLoadImages"},
		},
		{
			kind: "DockerClusterTemplate",
			obj:  func(ns string) client.Object { return newDockerClusterTemplate(ns) },
			spec: map[string]any{"loadBalancer": map[string]any{"imageTag": "latest"}},
			edit: []string{"loadBalancer", "imageTag"}, add: []string{"loadBalancer", "imageRepository"},
		},
		{
			kind: "DockerMachinePoolTemplate",
			obj:  func(ns string) client.Object { return newDockerMachinePoolTemplate(ns) },
			spec: map[string]any{"template": map[string]any{"customImage": "capstan/node:v1.37.2"}},
			edit: []string{"template", "customImage"}, add: []string{"template", "preLoadImages"},
		},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			ns := env.CreateNamespace(t, "immutable")
			u := env.WithField(t, tc.obj(ns), tc.spec, "spec", "template", "spec")
			require.NoError(t, env.Client.Create(ctx, u))
			wantMsg := tc.kind + "s are immutable: spec.template.spec cannot be edited in place; create a new " + tc.kind

			refuse := func(what string, mutate func(u *unstructured.Unstructured)) {
				t.Helper()
				edited := u.DeepCopy()
				mutate(edited)
				err := env.Client.Update(ctx, edited)
				require.Error(t, err, "%s of spec.template.spec was accepted", what)
				require.True(t, apierrors.IsInvalid(err), "%s: want Invalid, got %v", what, err)
				require.Contains(t, err.Error(), "spec.template.spec: Invalid value")
				require.Contains(t, err.Error(), wantMsg)
			}
			refuse("a change", func(e *unstructured.Unstructured) {
				require.NoError(t, unstructured.SetNestedField(e.Object, "edited", append([]string{"spec", "template", "spec"}, tc.edit...)...))
			})
			refuse("an addition", func(e *unstructured.Unstructured) {
				value := any("added")
				if strings.HasSuffix(tc.add[len(tc.add)-1], "Images") {
					value = []any{"app:v1"}
				}
				require.NoError(t, unstructured.SetNestedField(e.Object, value, append([]string{"spec", "template", "spec"}, tc.add...)...))
			})
			refuse("the removal", func(e *unstructured.Unstructured) {
				unstructured.RemoveNestedField(e.Object, "spec", "template", "spec")
				require.NoError(t, unstructured.SetNestedField(e.Object, map[string]any{"labels": map[string]any{"a": "b"}}, "spec", "template", "metadata"))
			})

			// Metadata stays editable: the template's own and the clones'.
			require.NoError(t, unstructured.SetNestedField(u.Object, map[string]any{"tier": "web"}, "spec", "template", "metadata", "labels"))
			u.SetLabels(map[string]string{"team": "a"})
			require.NoError(t, env.Client.Update(ctx, u), "editing metadata must stay allowed")
		})
	}
}
