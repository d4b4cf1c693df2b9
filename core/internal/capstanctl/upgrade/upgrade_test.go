package upgrade

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/inventory"
	"capstan.dev/core/internal/capstanctl/repository"
)

// repo writes a local repository of infrastructure-example with the given versions, each
// with metadata.yaml declaring contracts[version] ("" for no metadata.yaml).
func repo(t *testing.T, contracts map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "infrastructure-example")
	for v, c := range contracts {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, v), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, v, "infrastructure-components.yaml"), []byte("{}"), 0o600))
		if c == "" {
			continue
		}
		p := filepath.Join(dir, v, "metadata.yaml")
		series := "- {major: 0, minor: 1, contract: v1beta2}\n- {major: 0, minor: 2, contract: v1beta2}\n- {major: 0, minor: 3, contract: " + c + "}\n"
		require.NoError(t, os.WriteFile(p, []byte("apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n"+series), 0o600))
	}
	return dir
}

func TestPlan_NamesTheNewestOfTheContractEmbeddedAndMissingRepositories(t *testing.T) {
	dir := repo(t, map[string]string{"v0.1.0": "v1beta2", "v0.2.0": "v1beta2", "v0.2.1": "", "v0.3.0": "v1beta3", "v0.4.0-rc.1": "v1beta2"})
	path := filepath.Join(t.TempDir(), "clusterctl.yaml")
	require.NoError(t, os.WriteFile(path, []byte("providers:\n"+
		"- {name: example, type: InfrastructureProvider, url: "+dir+"/latest/infrastructure-components.yaml}\n"+
		"- {name: gone, type: InfrastructureProvider, url: /nonexistent/infrastructure-gone/latest/c.yaml}\n"), 0o600))
	cfg, err := repository.ReadConfig(path)
	require.NoError(t, err)
	entries := []inventory.Entry{
		{Label: "cluster-api", Name: "cluster-api", Type: "CoreProvider", Namespace: "capstan-system", Version: "v0.0.0-dev"},
		{Label: "infrastructure-example", Name: "example", Type: "InfrastructureProvider", Namespace: "example-system", Version: "v0.1.0"},
		{Label: "infrastructure-gone", Name: "gone", Type: "InfrastructureProvider", Namespace: "gone-system", Version: "v0.1.0"},
		{Label: "infrastructure-other", Name: "other", Type: "InfrastructureProvider", Namespace: "other-system", Version: "v1.0.0"},
	}
	var got []string
	for _, r := range Plan(entries, cfg, "v1beta2") {
		got = append(got, r.Label+": "+r.NextColumn())
	}
	require.Equal(t, []string{
		"cluster-api: " + EmbeddedNote,
		"infrastructure-example: v0.2.0", // v0.2.1 has no metadata.yaml, v0.3.0 is v1beta3, v0.4.0-rc.1 a pre-release
		"infrastructure-gone: unknown: listing the versions of provider infrastructure-gone: open /nonexistent/infrastructure-gone: no such file or directory",
		"infrastructure-other: unknown: no repository for installed provider infrastructure-other v1.0.0: the configuration file " + path +
			" lists no InfrastructureProvider other; add it to providers: with the url of its repository",
	}, got)

	entries[1].Version = "v0.2.0"
	require.Equal(t, UpToDate, Plan(entries[1:2], cfg, "v1beta2")[0].NextColumn())
}

func TestParseRequest_TakesClusterctlsFormAndTheShortOne(t *testing.T) {
	r, err := ParseRequest("infrastructure", "InfrastructureProvider", "capi-example-system/example:v0.2.0")
	require.NoError(t, err)
	require.Equal(t, Request{Flag: "infrastructure", Type: "InfrastructureProvider", Namespace: "capi-example-system", Name: "example", Version: "v0.2.0"}, r)
	r, err = ParseRequest("infrastructure", "InfrastructureProvider", "example:v0.2.0")
	require.NoError(t, err)
	require.Equal(t, "", r.Namespace)
	for _, bad := range []string{"example", "/example:v0.2.0", "ns/:v0.2.0", ":v0.2.0"} {
		_, err := ParseRequest("infrastructure", "InfrastructureProvider", bad)
		require.ErrorContains(t, err, "write [NAMESPACE/]NAME:VERSION", bad)
	}
}

func TestOldComponents_KeepsCRDsTheirObjectsAndTheInventoryEntry(t *testing.T) {
	obj := func(apiVersion, kind, name string, fields map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: fields}
		if u.Object == nil {
			u.Object = map[string]any{}
		}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetName(name)
		return u
	}
	found := []*unstructured.Unstructured{
		obj("apps/v1", "Deployment", "manager", nil),
		obj("infrastructure.example.capstan.dev/v1alpha2", "ExampleCluster", "users", nil),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "exampleclusters.infrastructure.example.capstan.dev", map[string]any{
			"spec": map[string]any{"group": "infrastructure.example.capstan.dev", "names": map[string]any{"kind": "ExampleCluster"}}}),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "role", nil),
		obj("clusterctl.cluster.x-k8s.io/v1alpha3", "Provider", "infrastructure-example", nil),
	}
	var got []string
	for _, u := range oldComponents(found) {
		got = append(got, u.GetKind()+" "+u.GetName())
	}
	require.Equal(t, []string{"Deployment manager", "ClusterRole role"}, got)
}
