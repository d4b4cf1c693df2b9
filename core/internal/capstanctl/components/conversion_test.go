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

	requireWebhookConfigured(t, objs, got)
}

// TestProviderComponents_ServeV1Beta1ThroughTheirOwnManager: the kubeadm and docker providers'
// CRDs that have a v1beta1 version are rendered with it served and converted by the Service of
// that provider's manager, as the managers configure them; before, they were rendered unserved and
// every init switched v1beta1 off until the manager's next check. The kinds are upstream's:
// every kubeadm kind, the six Docker kinds, DevCluster and DevMachine with their templates
// (upstream serves DevMachinePool(+Template) at v1beta2 only).
func TestProviderComponents_ServeV1Beta1ThroughTheirOwnManager(t *testing.T) {
	for name, want := range map[string]int{"bootstrap-kubeadm": 4, "infrastructure-docker": 10} {
		ps, err := Select([]string{name})
		require.NoError(t, err)
		objs, err := ps[0].Objects()
		require.NoError(t, err)
		var withV1Beta1 []string
		for _, o := range objs {
			versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
			for _, v := range versions {
				if o.GetKind() == "CustomResourceDefinition" && v.(map[string]any)["name"] == "v1beta1" {
					withV1Beta1 = append(withV1Beta1, o.GetName())
				}
			}
		}
		got := ConversionCRDs(objs)
		require.ElementsMatch(t, withV1Beta1, got, name)
		require.Len(t, got, want, name)
		requireWebhookConfigured(t, objs, got)
	}
}

// requireWebhookConfigured checks that the named CRDs are converted by the components' own
// Service, leave the CA bundle to the manager and serve every version.
func requireWebhookConfigured(t *testing.T, objs []*unstructured.Unstructured, names []string) {
	t.Helper()
	var service *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "Service" {
			service = o
		}
	}
	require.NotNil(t, service, "the components hold the webhook's Service")
	for _, o := range objs {
		if !slices.Contains(names, o.GetName()) {
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
	require.Equal(t, 4, n, "the four kubeadm kinds")

	n, err = SetConversionURL(objs, "capstan-system", "https://127.0.0.1:9443/convert")
	require.NoError(t, err)
	require.Equal(t, len(converters.Kinds(nil)), n)
	urls := map[string]int{}
	for _, o := range objs {
		if !slices.Contains(ConversionCRDs(objs), o.GetName()) {
			continue
		}
		cfg, _, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook", "clientConfig")
		if url, ok := cfg["url"].(string); ok {
			require.Len(t, cfg, 1, o.GetName())
			urls[url]++
		}
	}
	require.Equal(t, map[string]int{"https://127.0.0.1:1/convert": 4, "https://127.0.0.1:9443/convert": len(converters.Kinds(nil))}, urls,
		"each provider's CRDs point at its own manager; the docker provider's keep their Service")
}
