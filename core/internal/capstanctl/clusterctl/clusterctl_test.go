package clusterctl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"capstan.dev/core/internal/capstanctl/components"
)

func moduleObjects(t *testing.T, module string) []*unstructured.Unstructured {
	t.Helper()
	ms, err := components.Select([]string{module})
	require.NoError(t, err)
	objs, err := ms[0].Objects()
	require.NoError(t, err)
	return objs
}

// clusterctl's delete and upgrade select a provider's objects by both labels, and its move
// discovers kinds only through CRDs carrying OwnedLabel: an object without them would be left
// behind, a CRD without it would never be moved.
func TestEmbeddedComponents_EveryObjectCarriesClusterctlsLabels(t *testing.T) {
	for _, m := range components.All {
		t.Run(m.Name, func(t *testing.T) {
			for _, o := range moduleObjects(t, m.Name) {
				labels := o.GetLabels()
				v, ok := labels[OwnedLabel]
				require.True(t, ok, "%s %s has no %s label", o.GetKind(), o.GetName(), OwnedLabel)
				require.Empty(t, v, "%s %s", o.GetKind(), o.GetName())
				want := map[string]string{"core": "cluster-api", "kubeadm": "bootstrap-kubeadm", "docker": "infrastructure-docker"}[m.Name]
				if o.GetKind() == "CustomResourceDefinition" && strings.HasSuffix(o.GetName(), ".controlplane.cluster.x-k8s.io") {
					want = "control-plane-kubeadm"
				}
				require.Equal(t, want, labels[ProviderLabel], "%s %s", o.GetKind(), o.GetName())
			}
		})
	}
}

// Each components file holds exactly its provider's objects, each labelled for it, and one
// Namespace (clusterctl's target namespace); together the four files hold every object once,
// except the kubeadm namespace both kubeadm providers name.
func TestSplit_EachProviderGetsItsLabelledObjectsAndOneNamespace(t *testing.T) {
	seen := map[string]int{}
	total := 0
	for _, m := range components.All {
		total += len(moduleObjects(t, m.Name))
	}
	kinds := map[string][]string{}
	for _, p := range Providers {
		objs, err := Split(p, moduleObjects(t, p.Module))
		require.NoError(t, err)
		namespaces := 0
		for _, o := range objs {
			require.Equal(t, p.Label, o.GetLabels()[ProviderLabel], "%s: %s %s", p.File, o.GetKind(), o.GetName())
			_, owned := o.GetLabels()[OwnedLabel]
			require.True(t, owned, "%s: %s %s", p.File, o.GetKind(), o.GetName())
			if o.GetKind() == "Namespace" {
				namespaces++
			}
			seen[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()]++
			if o.GetKind() == "CustomResourceDefinition" {
				kinds[p.Label] = append(kinds[p.Label], o.GetName())
			}
		}
		require.Equal(t, 1, namespaces, p.File)
	}
	require.Equal(t, []string{"kubeadmcontrolplanes.controlplane.cluster.x-k8s.io", "kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io"},
		kinds["control-plane-kubeadm"])
	require.Equal(t, []string{"kubeadmconfigs.bootstrap.cluster.x-k8s.io", "kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io"},
		kinds["bootstrap-kubeadm"])
	require.Equal(t, 2, seen["Namespace//capstan-kubeadm-bootstrap-system"])
	require.Len(t, seen, total, "every object is in some file")
}

func TestSplit_RefusesAnObjectWithoutTheProviderLabelNamingIt(t *testing.T) {
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName("x-system")
	ns.SetLabels(map[string]string{ProviderLabel: "cluster-api"})
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetName("stray")
	_, err := Split(Providers[0], []*unstructured.Unstructured{ns, cm})
	require.EqualError(t, err, "ConfigMap stray of provider core has no cluster.x-k8s.io/provider label")

	_, err = Split(Providers[0], []*unstructured.Unstructured{cm.DeepCopy()})
	require.Error(t, err)
	_, err = Split(Providers[0], []*unstructured.Unstructured{ns})
	require.EqualError(t, err, "no object of provider core is labelled cluster.x-k8s.io/provider=cluster-api")
}

func TestNewMetadata_MapsTheReleaseSeriesAndTheOlderOnesOfItsMajorToV1beta2(t *testing.T) {
	m, err := NewMetadata("v0.2.1")
	require.NoError(t, err)
	data, err := m.YAML()
	require.NoError(t, err)
	require.Equal(t, `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- contract: v1beta2
  major: 0
  minor: 0
- contract: v1beta2
  major: 0
  minor: 1
- contract: v1beta2
  major: 0
  minor: 2
`, string(data))
	for _, installed := range []string{"v0.0.3", "v0.1.0", "v0.2.0"} {
		c, ok := m.Contract(installed)
		require.True(t, ok, "clusterctl upgrades %s to v0.2.1 only if the newer metadata lists its series", installed)
		require.Equal(t, "v1beta2", c)
	}
	_, ok := m.Contract("v1.0.0")
	require.False(t, ok)
}

func TestParseVersion_RefusesWhatClusterctlCannotUseNamingIt(t *testing.T) {
	for _, v := range []string{"", "dev", "0.1.0", "v1.2", "vX.1.0", "ci-passed-c9ec92f-19-g5375e3d"} {
		_, err := ParseVersion(v)
		require.ErrorContains(t, err, `release version "`+v+`" is not a semantic version`, v)
	}
	for _, v := range []string{"v0.1.0", "v1.12.0-rc.1"} {
		_, err := ParseVersion(v)
		require.NoError(t, err, v)
	}
}

func TestInventory_OneEntryPerClusterctlProviderAsClusterctlWritesIt(t *testing.T) {
	entries, err := Inventory(components.All, "v0.1.0")
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		require.Equal(t, APIVersion, e.GetAPIVersion())
		require.Equal(t, "Provider", e.GetKind())
		require.Equal(t, map[string]string{OwnedLabel: "", ProviderLabel: e.GetName(), CoreLabel: "inventory"}, e.GetLabels())
		got = append(got, strings.Join([]string{e.GetNamespace(), e.GetName(), e.Object["providerName"].(string), e.Object["type"].(string), e.Object["version"].(string)}, " "))
	}
	require.Equal(t, []string{
		"capstan-system cluster-api cluster-api CoreProvider v0.1.0",
		"capstan-kubeadm-bootstrap-system bootstrap-kubeadm kubeadm BootstrapProvider v0.1.0",
		"capstan-kubeadm-bootstrap-system control-plane-kubeadm kubeadm ControlPlaneProvider v0.1.0",
		"capstan-docker-system infrastructure-docker docker InfrastructureProvider v0.1.0",
	}, got)

	_, err = Inventory(components.All, "dev")
	require.ErrorContains(t, err, `release version "dev"`)
}

// The CRD must carry CoreLabel=inventory and not OwnedLabel: clusterctl's move discovers kinds by
// OwnedLabel and must not move inventory entries.
func TestInventoryCRD_IsClusterctlsProviderKindLabelledAsInventoryOnly(t *testing.T) {
	crd, err := InventoryCRD()
	require.NoError(t, err)
	require.Equal(t, "providers.clusterctl.cluster.x-k8s.io", crd.GetName())
	require.Equal(t, map[string]string{CoreLabel: "inventory"}, crd.GetLabels())
	out, err := yaml.Marshal(crd.Object)
	require.NoError(t, err)
	for _, field := range []string{"providerName:", "type:", "version:", "watchedNamespace:", "scope: Namespaced", "name: v1alpha3"} {
		require.Contains(t, string(out), field)
	}
}
