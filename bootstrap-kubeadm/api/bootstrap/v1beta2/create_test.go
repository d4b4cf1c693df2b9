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
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// TestCreate_ObjectsAreStoredAsSent creates each kind, minimal and with every field set, and reads
// it back: the schema must accept it and must not prune or rewrite any field we set.
func TestCreate_ObjectsAreStoredAsSent(t *testing.T) {
	tests := []struct {
		name string
		obj  func(ns string) client.Object
		spec func(obj client.Object) any
	}{
		{
			name: "KubeadmConfigMinimal",
			obj:  func(ns string) client.Object { return newKubeadmConfig(ns) },
			spec: func(o client.Object) any { return o.(*bootstrapv1.KubeadmConfig).Spec },
		},
		{
			name: "KubeadmConfigEveryField",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec = fullSpec()
				return kc
			},
			spec: func(o client.Object) any { return o.(*bootstrapv1.KubeadmConfig).Spec },
		},
		{
			name: "KubeadmConfigExternalEtcdAndFileDiscovery",
			obj: func(ns string) client.Object {
				kc := newKubeadmConfig(ns)
				kc.Spec = externalEtcdSpec()
				return kc
			},
			spec: func(o client.Object) any { return o.(*bootstrapv1.KubeadmConfig).Spec },
		},
		{
			name: "KubeadmConfigTemplateMinimal",
			obj:  func(ns string) client.Object { return newKubeadmConfigTemplate(ns) },
			spec: func(o client.Object) any { return o.(*bootstrapv1.KubeadmConfigTemplate).Spec },
		},
		{
			name: "KubeadmConfigTemplateEveryField",
			obj: func(ns string) client.Object {
				kct := newKubeadmConfigTemplate(ns)
				kct.Spec.Template.ObjectMeta = templateMeta
				kct.Spec.Template.Spec = fullSpec()
				return kct
			},
			spec: func(o client.Object) any { return o.(*bootstrapv1.KubeadmConfigTemplate).Spec },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireStoredAsSent(t, tt.obj(env.CreateNamespace(t, "create")), tt.spec)
		})
	}
}

// TestKubeadmConfig_StatusSubresourceStoresContractFields writes the contract fields through the
// status subresource, as the controller will, and checks that a spec write cannot touch them.
func TestKubeadmConfig_StatusSubresourceStoresContractFields(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "status")
	kc := newKubeadmConfig(ns)
	require.NoError(t, env.Client.Create(ctx, kc))

	kc.Status = bootstrapv1.KubeadmConfigStatus{
		Initialization:     bootstrapv1.KubeadmConfigInitializationStatus{DataSecretCreated: ptr.To(true)},
		DataSecretName:     "kc1",
		ObservedGeneration: 1,
	}
	want := kc.Status
	require.NoError(t, env.Client.Status().Update(ctx, kc))

	// A spec update carrying a different status must leave the status alone.
	kc.Status.DataSecretName = "other"
	kc.Spec.Verbosity = ptr.To[int32](3)
	require.NoError(t, env.Client.Update(ctx, kc))

	got := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kc), got))
	require.Empty(t, cmp.Diff(want, got.Status), "stored status differs (-want +got)")
	require.Equal(t, ptr.To[int32](3), got.Spec.Verbosity)
}

// TestCRDs_DeclareContractCategoryAndNames checks what the core and kubectl rely on: the contract
// label the core reads to pick the API version, the cluster-api category and the short names.
func TestCRDs_DeclareContractCategoryAndNames(t *testing.T) {
	tests := []struct {
		crd       string
		shortName string
		status    bool
		scale     bool
	}{
		{crd: "kubeadmconfigs.bootstrap.cluster.x-k8s.io", shortName: "kc", status: true},
		{crd: "kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io", shortName: "kct"},
		{crd: "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io", shortName: "kcp", status: true, scale: true},
		{crd: "kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io", shortName: "kcpt"},
	}
	for _, tt := range tests {
		t.Run(tt.crd, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Name: tt.crd}, crd))
			require.Equal(t, "v1beta2", crd.Labels["cluster.x-k8s.io/v1beta2"])
			require.Equal(t, []string{"cluster-api"}, crd.Spec.Names.Categories)
			require.Equal(t, []string{tt.shortName}, crd.Spec.Names.ShortNames)
			// v1beta1 ships unserved; the manager's conversion webhook turns it on (api/.../v1beta1).
			require.Len(t, crd.Spec.Versions, 2)
			old, v := crd.Spec.Versions[0], crd.Spec.Versions[1]
			require.Equal(t, "v1beta1", old.Name)
			require.False(t, old.Served || old.Storage)
			require.True(t, old.Deprecated)
			require.Equal(t, "v1beta2", v.Name)
			require.True(t, v.Served && v.Storage)
			require.NotEmpty(t, v.AdditionalPrinterColumns)
			require.Equal(t, tt.status, v.Subresources != nil && v.Subresources.Status != nil, "status subresource")
			require.Equal(t, tt.scale, v.Subresources != nil && v.Subresources.Scale != nil, "scale subresource")
		})
	}
}
