package release

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// objects decodes a components file, keyed Kind/name.
func objects(t *testing.T, data []byte) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			return out
		}
		if len(u.Object) > 0 {
			out[u.GetKind()+"/"+u.GetName()] = u
		}
	}
}

func servedVersions(t *testing.T, crd *unstructured.Unstructured) (served []string, storage string) {
	t.Helper()
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	require.NoError(t, err)
	for _, v := range versions {
		m := v.(map[string]any)
		if m["served"] == true {
			served = append(served, m["name"].(string))
		}
		if m["storage"] == true {
			storage = m["name"].(string)
		}
	}
	return served, storage
}

func TestComponents_V010ServesV1alpha1WithoutAWebhook(t *testing.T) {
	data, err := Components("v0.1.0")
	require.NoError(t, err)
	objs := objects(t, data)
	for _, crd := range []string{"exampleclusters", "examplemachines", "examplemachinetemplates"} {
		u := objs["CustomResourceDefinition/"+crd+".infrastructure.example.capstan.dev"]
		require.NotNil(t, u, crd)
		served, storage := servedVersions(t, u)
		require.Equal(t, []string{"v1alpha1"}, served)
		require.Equal(t, "v1alpha1", storage)
		_, found, _ := unstructured.NestedMap(u.Object, "spec", "conversion")
		require.False(t, found, "v0.1.0 converts nothing")
	}
	require.NotContains(t, objs, "CustomResourceDefinition/exampleconfigs.bootstrap.example.capstan.dev", "the bootstrap kinds are not this provider's")
	require.NotContains(t, objs, "Service/"+WebhookService)
	dep := objs["Deployment/"+Deployment]
	require.NotNil(t, dep)
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	require.Equal(t, "capstan/example-manager:v0.1.0", containers[0].(map[string]any)["image"])
	require.NotContains(t, containers[0].(map[string]any)["args"], "--webhook-service=$(POD_NAMESPACE)/"+WebhookService)
	require.Contains(t, objs, "ClusterRole/example-manager-role")
	require.Contains(t, objs, "ClusterRoleBinding/example-manager-role")
	require.Contains(t, objs, "ServiceAccount/example-manager")
	core := objs["ClusterRole/example-aggregated-core-role"]
	require.NotNil(t, core, "the core is granted the provider's kinds")
	require.Equal(t, "true", core.GetLabels()["cluster.x-k8s.io/aggregate-to-manager"])
}

func TestComponents_V020StoresV1alpha2AndConvertsByItsWebhook(t *testing.T) {
	data, err := Components("v0.2.0")
	require.NoError(t, err)
	objs := objects(t, data)
	for _, crd := range []string{"exampleclusters", "examplemachines", "examplemachinetemplates"} {
		u := objs["CustomResourceDefinition/"+crd+".infrastructure.example.capstan.dev"]
		require.NotNil(t, u, crd)
		served, storage := servedVersions(t, u)
		require.ElementsMatch(t, []string{"v1alpha1", "v1alpha2"}, served)
		require.Equal(t, "v1alpha2", storage)
		require.Equal(t, "v1alpha1_v1alpha2", u.GetLabels()["cluster.x-k8s.io/v1beta2"], "both versions serve the contract")
		strategy, _, _ := unstructured.NestedString(u.Object, "spec", "conversion", "strategy")
		require.Equal(t, "Webhook", strategy)
		svc, _, _ := unstructured.NestedMap(u.Object, "spec", "conversion", "webhook", "clientConfig", "service")
		require.Equal(t, map[string]any{"namespace": Namespace, "name": WebhookService, "path": "/convert", "port": float64(443)}, svc)
	}
	require.Contains(t, objs, "Service/"+WebhookService)
	containers, _, _ := unstructured.NestedSlice(objs["Deployment/"+Deployment].Object, "spec", "template", "spec", "containers")
	require.Equal(t, "capstan/example-manager:v0.2.0", containers[0].(map[string]any)["image"])
	require.Contains(t, containers[0].(map[string]any)["args"], "--webhook-service=$(POD_NAMESPACE)/"+WebhookService)
}

func TestWrite_ARepositoryClusterctlReads(t *testing.T) {
	dir := t.TempDir()
	for _, v := range Versions {
		require.NoError(t, Write(dir, v))
	}
	for _, f := range []string{"infrastructure-components.yaml", "metadata.yaml", "cluster-template.yaml"} {
		_, err := os.Stat(filepath.Join(dir, ProviderLabel, "v0.2.0", f))
		require.NoError(t, err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, ProviderLabel, "v0.2.0", "metadata.yaml"))
	require.NoError(t, err)
	require.Equal(t, `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 0
  minor: 1
  contract: v1beta2
- major: 0
  minor: 2
  contract: v1beta2
`, string(meta))
	require.ErrorContains(t, Write(dir, "v0.3.0"), `the example provider has no release "v0.3.0" (it has v0.1.0, v0.2.0)`)
}
