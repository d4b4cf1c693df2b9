package components

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/api/core/converters"
	"capstan.dev/contracts/contract"
)

// TestCoreComponents_ConfigureTheWebhookOfExactlyTheKindsTheManagerConverts keeps the kustomize
// patch (core/config/crd) and the core manager's converters in step: a kind the manager converts
// but whose CRD the components leave unserved would be switched off by every init, and a CRD
// served at v1beta1 without a converter would fail every v1beta1 request.
func TestCoreComponents_ConfigureTheWebhookOfExactlyTheKindsTheManagerConverts(t *testing.T) {
	core, err := Select([]string{"core"})
	require.NoError(t, err)
	objs, err := core[0].Objects()
	require.NoError(t, err)
	var want []string
	for _, k := range converters.Kinds(nil) {
		want = append(want, contract.CalculateCRDName(k.GroupKind.Group, k.GroupKind.Kind))
	}
	slices.Sort(want)
	got := ConversionCRDs(objs)
	slices.Sort(got)
	require.Equal(t, want, got)

	var service *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "Service" {
			service = o
		}
	}
	require.NotNil(t, service, "the core components hold the webhook's Service")
	for _, o := range objs {
		if !slices.Contains(got, o.GetName()) {
			continue
		}
		svc, _, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook", "clientConfig", "service")
		require.Equal(t, map[string]any{"namespace": service.GetNamespace(), "name": service.GetName(), "path": ConversionWebhookPath, "port": float64(443)},
			svc, o.GetName())
		_, hasCA, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		require.False(t, hasCA, "%s: the CA bundle is the manager's to set", o.GetName())
		versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		for _, v := range versions {
			require.Equal(t, true, v.(map[string]any)["served"], "%s: every version is served", o.GetName())
		}
	}
}

func TestSetConversionURL_PointsOnlyThatProvidersCRDsAtTheURL(t *testing.T) {
	objs, err := Load(All)
	require.NoError(t, err)
	n, err := SetConversionURL(objs, "capstan-kubeadm-bootstrap-system", "https://127.0.0.1:1/convert")
	require.NoError(t, err)
	require.Zero(t, n, "the kubeadm provider converts nothing")

	n, err = SetConversionURL(objs, "capstan-system", "https://127.0.0.1:9443/convert")
	require.NoError(t, err)
	require.Equal(t, len(ConversionCRDs(objs)), n)
	for _, o := range objs {
		if !slices.Contains(ConversionCRDs(objs), o.GetName()) {
			continue
		}
		cfg, _, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook", "clientConfig")
		require.Equal(t, map[string]any{"url": "https://127.0.0.1:9443/convert"}, cfg, o.GetName())
	}
}
