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

package crd_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/config/crd"
)

// TestBases_PassTheAPIServersCRDValidation runs the apiserver's own CRD validation, including the
// static cost estimate of every CEL rule, on each embedded CRD. It needs no kube-apiserver, so a rule
// that would make CRD installation fail ("estimated rule cost exceeds budget") is caught by a plain
// `go test` long before an envtest suite or a cluster sees it.
func TestBases_PassTheAPIServersCRDValidation(t *testing.T) {
	files, err := fs.Glob(crd.Bases, "bases/*.yaml")
	require.NoError(t, err)
	require.Len(t, files, 13, "one CRD per core kind (with MachineDrainRule and ClusterClass), per addons kind, per ipam kind, and ExtensionConfig")

	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := crd.Bases.ReadFile(f)
			require.NoError(t, err)
			var v1 apiextensionsv1.CustomResourceDefinition
			require.NoError(t, yaml.UnmarshalStrict(data, &v1))
			require.Contains(t, []string{"cluster.x-k8s.io", "addons.cluster.x-k8s.io", "ipam.cluster.x-k8s.io", "runtime.cluster.x-k8s.io"}, v1.Spec.Group)
			require.Contains(t, v1.Spec.Names.Categories, "cluster-api")

			apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
			var internal apiextensions.CustomResourceDefinition
			require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil))
			require.Empty(t, validation.ValidateCustomResourceDefinition(context.Background(), &internal))
		})
	}
}
