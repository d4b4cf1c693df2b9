package crds

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"capstan.dev/contracts/contract"
)

func TestAll_NamesMatchCalculateCRDName(t *testing.T) {
	all := All()
	require.Len(t, all, 13)
	for _, crd := range all {
		require.Equal(t, contract.CalculateCRDName(crd.Spec.Group, crd.Spec.Names.Kind), crd.Name)
	}
}

func TestAll_EveryKindDeclaresAContractDiscoveryAccepts(t *testing.T) {
	want := map[string]contract.Version{
		"GenericInfrastructureCluster":                  {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericInfrastructureMachine":                  {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericInfrastructureMachineTemplate":          {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericBootstrapConfig":                        {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericBootstrapConfigTemplate":                {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericControlPlane":                           {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericControlPlaneTemplate":                   {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericInfrastructureClusterTemplate":          {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericRemediation":                            {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericRemediationTemplate":                    {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericLegacyInfrastructureMachine":            {Contract: contract.V1Beta1, APIVersion: "v1beta1"},
		"GenericMultiVersionInfrastructureMachine":      {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
		"GenericImmutableInfrastructureMachineTemplate": {Contract: contract.V1Beta2, APIVersion: "v1beta2"},
	}
	for _, crd := range All() {
		v, err := contract.VersionFromLabels(crd.Name, crd.Labels)
		require.NoError(t, err, crd.Name)
		require.Equal(t, want[crd.Spec.Names.Kind], v, crd.Name)
		require.True(t, served(crd, v.APIVersion), "%s: discovered version %s is not served", crd.Name, v.APIVersion)
	}
}

func TestAll_GVKsAreServedByTheirCRDs(t *testing.T) {
	gvks := []schema.GroupVersionKind{
		GenericInfrastructureClusterGVK, GenericInfrastructureMachineGVK, GenericInfrastructureMachineTemplateGVK,
		GenericBootstrapConfigGVK, GenericBootstrapConfigTemplateGVK, GenericControlPlaneGVK,
		GenericLegacyInfrastructureMachineGVK, GenericMultiVersionInfrastructureMachineGVK,
		GenericRemediationTemplateGVK, GenericRemediationGVK,
		GenericInfrastructureClusterTemplateGVK, GenericControlPlaneTemplateGVK, GenericImmutableInfrastructureMachineTemplateGVK,
	}
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range All() {
		byName[crd.Name] = crd
	}
	for _, gvk := range gvks {
		crd, ok := byName[contract.CalculateCRDName(gvk.Group, gvk.Kind)]
		require.True(t, ok, "no CRD for %s", gvk)
		require.True(t, served(crd, gvk.Version), "%s not served", gvk)
	}
}

func TestAll_SchemasKeepUnknownSpecAndStatusWithStatusSubresource(t *testing.T) {
	for _, crd := range All() {
		require.Equal(t, apiextensionsv1.NamespaceScoped, crd.Spec.Scope, crd.Name)
		storage := 0
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				storage++
			}
			require.NotNil(t, v.Subresources, "%s %s", crd.Name, v.Name)
			require.NotNil(t, v.Subresources.Status, "%s %s", crd.Name, v.Name)
			props := v.Schema.OpenAPIV3Schema.Properties
			for _, p := range []string{"spec", "status"} {
				require.Equal(t, "object", props[p].Type, "%s %s %s", crd.Name, v.Name, p)
				require.NotNil(t, props[p].XPreserveUnknownFields, "%s %s %s", crd.Name, v.Name, p)
				require.True(t, *props[p].XPreserveUnknownFields, "%s %s %s", crd.Name, v.Name, p)
			}
		}
		require.Equal(t, 1, storage, "%s must have exactly one storage version", crd.Name)
	}
}

func TestAll_ReturnsIndependentCopies(t *testing.T) {
	a := All()
	a[0].Labels["mutated"] = "true"
	require.NotContains(t, All()[0].Labels, "mutated")
}

func TestNew_SetsKindAndKey(t *testing.T) {
	u := New(GenericControlPlaneGVK, "ns", "cp")
	require.Equal(t, GenericControlPlaneGVK, u.GroupVersionKind())
	require.Equal(t, "ns", u.GetNamespace())
	require.Equal(t, "cp", u.GetName())
}

func served(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Served {
			return true
		}
	}
	return false
}

func TestDecode_ReportsBrokenManifestsInsteadOfSkippingThem(t *testing.T) {
	_, err := decode(fstest.MapFS{"bad.yaml": {Data: []byte("apiVersion: [")}})
	require.ErrorContains(t, err, "decoding bad.yaml")

	_, err = decode(fstest.MapFS{"cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")}})
	require.ErrorContains(t, err, `cm.yaml holds a "ConfigMap", not a CustomResourceDefinition`)

	got, err := decode(fstest.MapFS{"empty.yaml": {Data: []byte("---\n---\n")}})
	require.NoError(t, err)
	require.Empty(t, got)
}
