package discoverytest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// getOnlyReader passes Gets through to the API server and fails the test on List:
// discovery must GET the one CRD it needs by name.
type getOnlyReader struct {
	client.Reader
	t    *testing.T
	gets atomic.Int32
}

func (r *getOnlyReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets.Add(1)
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *getOnlyReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	r.t.Errorf("contract discovery listed objects; it must GET the CRD by its calculated name")
	return errors.New("listing is not allowed")
}

func reader(t *testing.T) *getOnlyReader { return &getOnlyReader{Reader: env.Client, t: t} }

func TestGetContractVersion_V1Beta2LabelSelectsV1Beta2(t *testing.T) {
	v, err := contract.GetContractVersion(t.Context(), reader(t), crds.GenericInfrastructureMachineGVK.GroupKind())
	require.NoError(t, err)
	require.Equal(t, contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}, v)
}

func TestGetContractVersion_V1Beta1OnlyLabelFallsBackToV1Beta1(t *testing.T) {
	v, err := contract.GetContractVersion(t.Context(), reader(t), crds.GenericLegacyInfrastructureMachineGVK.GroupKind())
	require.NoError(t, err)
	require.Equal(t, contract.Version{Contract: contract.V1Beta1, APIVersion: "v1beta1"}, v)
}

func TestGetContractVersion_MultiVersionLabelPicksNewestCRDVersion(t *testing.T) {
	v, err := contract.GetContractVersion(t.Context(), reader(t), crds.GenericMultiVersionInfrastructureMachineGVK.GroupKind())
	require.NoError(t, err)
	require.Equal(t, contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}, v)
}

func TestGetContractVersion_EveryGenericCRDDeclaresAServedVersion(t *testing.T) {
	for _, crd := range crds.All() {
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		v, err := contract.GetContractVersion(t.Context(), reader(t), gk)
		require.NoError(t, err, gk.String())
		served := false
		for _, sv := range crd.Spec.Versions {
			served = served || (sv.Served && sv.Name == v.APIVersion)
		}
		require.True(t, served, "%s: discovered %s is not served", gk, v.APIVersion)
	}
}

func TestGetContractVersion_MissingCRDNamesIt(t *testing.T) {
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "NeverInstalledMachine"}
	_, err := contract.GetContractVersion(t.Context(), reader(t), gk)
	require.ErrorIs(t, err, contract.ErrCRDNotFound)
	require.False(t, apierrors.IsNotFound(err))
	require.EqualError(t, err, "CRD neverinstalledmachines.infrastructure.cluster.x-k8s.io for kind "+
		"NeverInstalledMachine.infrastructure.cluster.x-k8s.io not found: is the provider that serves it installed?")
}

func TestGetContractVersion_CRDWithoutContractLabelIsRejected(t *testing.T) {
	gk := createCRD(t, "GenericUnlabelledMachine", nil)
	_, err := contract.GetContractVersion(t.Context(), reader(t), gk)
	require.ErrorIs(t, err, contract.ErrNoContractLabel)
	require.EqualError(t, err, "CRD genericunlabelledmachines.infrastructure.cluster.x-k8s.io has no "+
		"cluster.x-k8s.io/v1beta2 or cluster.x-k8s.io/v1beta1 label: the provider does not declare a supported contract")
}

func TestGetContractVersion_MalformedLabelValueIsRejected(t *testing.T) {
	gk := createCRD(t, "GenericMislabelledMachine", map[string]string{
		"cluster.x-k8s.io/v1beta2": "v1beta1__v1beta2", // a valid label value, but an empty CRD version
		"cluster.x-k8s.io/v1beta1": "v1beta1",
	})
	_, err := contract.GetContractVersion(t.Context(), reader(t), gk)
	require.ErrorIs(t, err, contract.ErrMalformedContractLabel)
	require.ErrorContains(t, err, `CRD genericmislabelledmachines.infrastructure.cluster.x-k8s.io has label `+
		`cluster.x-k8s.io/v1beta2="v1beta1__v1beta2": empty version between '_' separators`)
}

func TestGetContractVersion_GetsOneCRDByNameAndNeverLists(t *testing.T) {
	r := reader(t)
	kinds := []schema.GroupKind{
		crds.GenericInfrastructureClusterGVK.GroupKind(), crds.GenericControlPlaneGVK.GroupKind(),
		crds.GenericBootstrapConfigGVK.GroupKind(), {Group: "example.com", Kind: "Missing"},
	}
	for _, gk := range kinds {
		_, _ = contract.GetContractVersion(t.Context(), r, gk)
	}
	require.Equal(t, int32(len(kinds)), r.gets.Load(), "one GET per discovery")
}

// TestDiscoveredContract_SelectsThePathAProviderWrites is the end-to-end use: a fake
// provider object is flipped ready through the status subresource in the shape of
// its declared contract, and the accessor chosen by discovery reads it back.
func TestDiscoveredContract_SelectsThePathAProviderWrites(t *testing.T) {
	ns := env.CreateNamespace(t, "discovery")
	for _, gvk := range []schema.GroupVersionKind{crds.GenericInfrastructureMachineGVK, crds.GenericLegacyInfrastructureMachineGVK} {
		t.Run(gvk.Kind, func(t *testing.T) {
			v, err := contract.GetContractVersion(t.Context(), reader(t), gvk.GroupKind())
			require.NoError(t, err)

			m := crds.New(v.GroupVersionKind(gvk.GroupKind()), ns, "m1")
			require.NoError(t, contract.InfrastructureMachine().ProviderID().Set(m, "generic://m1"))
			require.NoError(t, env.Client.Create(t.Context(), m))

			require.NoError(t, contract.InfrastructureMachine().Provisioned(v.Contract).Set(m, true))
			require.NoError(t, env.Client.Status().Update(t.Context(), m))

			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(m.GroupVersionKind())
			envtest.WaitFor(t, 10*time.Second, "the machine to read back provisioned", func() (bool, error) {
				if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(m), got); err != nil {
					return false, err
				}
				ok, err := contract.InfrastructureMachine().Provisioned(v.Contract).Get(got)
				return err == nil && *ok, err
			})
			id, err := contract.InfrastructureMachine().ProviderID().Get(got)
			require.NoError(t, err)
			require.Equal(t, "generic://m1", *id)
		})
	}
}

// createCRD installs a minimal namespaced CRD in the infrastructure group for one
// test and removes it afterwards. Discovery reads only the CRD's metadata, so the
// test need not wait for the CRD to be established.
func createCRD(t *testing.T, kind string, labels map[string]string) schema.GroupKind {
	t.Helper()
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: kind}
	name := contract.CalculateCRDName(gk.Group, gk.Kind)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gk.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: kind, ListKind: kind + "List", Plural: name[:len(name)-len(gk.Group)-1],
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1beta2", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
	require.NoError(t, env.Client.Create(t.Context(), crd))
	t.Cleanup(func() {
		if err := env.Client.Delete(context.Background(), crd); client.IgnoreNotFound(err) != nil {
			t.Errorf("deleting CRD %s: %v", name, err)
		}
	})
	return gk
}
