package movetest

import (
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"capstan.dev/core/internal/capstanctl/move"
)

const (
	// thirdPartyAPI is a provider group outside cluster.x-k8s.io whose CRD carries clusterctl's
	// label, as a provider installed by clusterctl has it.
	thirdPartyAPI = "infrastructure.example.com/v1"
	// strayAPI is a group outside cluster.x-k8s.io whose CRD does not.
	strayAPI = "stray.example.com/v1"
)

// thirdPartyCRDs are ExampleMachine (labelled clusterctl.cluster.x-k8s.io), Stray (not), and
// two cluster-scoped kinds.
func thirdPartyCRDs() []*apiextensionsv1.CustomResourceDefinition {
	crd := func(group, kind, plural string, labels map[string]string, scope ...apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Labels: labels},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group, Scope: append(scope, apiextensionsv1.NamespaceScoped)[0],
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
			},
		}
	}
	return []*apiextensionsv1.CustomResourceDefinition{
		crd("infrastructure.example.com", "ExampleMachine", "examplemachines", map[string]string{"clusterctl.cluster.x-k8s.io": ""}),
		crd("stray.example.com", "Stray", "strays", nil),
		// Cluster-scoped, as providers' identities are: one moving with what it owns, one moving
		// only the objects labelled to.
		crd("infrastructure.example.com", "ExampleClusterIdentity", "exampleclusteridentities",
			map[string]string{"clusterctl.cluster.x-k8s.io": "", move.MoveHierarchyLabel: ""}, apiextensionsv1.ClusterScoped),
		crd("infrastructure.example.com", "ExampleShared", "exampleshareds", map[string]string{"clusterctl.cluster.x-k8s.io": ""},
			apiextensionsv1.ClusterScoped),
	}
}

// TestMove_TakesKindsOfOtherGroupsWhoseCRDCarriesClusterctlsLabel: as upstream clusterctl, move
// discovers kinds by the clusterctl.cluster.x-k8s.io CRD label, so a provider of another API group
// moves with its Cluster (paused, then resumed); a kind whose CRD lacks the label stays, even
// when a moved object owns it.
func TestMove_TakesKindsOfOtherGroupsWhoseCRDCarriesClusterctlsLabel(t *testing.T) {
	f := &fixture{ns: source.CreateNamespace(t, "move-thirdparty"), pausedBefore: map[string]bool{}}
	cluster := f.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", fields: map[string]any{"spec": clusterSpec("c1")}})
	f.create(t, true, def{apiVersion: thirdPartyAPI, kind: "ExampleMachine", name: "m1", owners: []*unstructured.Unstructured{cluster},
		fields: map[string]any{"spec": map[string]any{"size": "small"}}})
	f.create(t, false, def{apiVersion: strayAPI, kind: "Stray", name: "s1", owners: []*unstructured.Unstructured{cluster},
		fields: map[string]any{"spec": map[string]any{"note": "not clusterctl's"}}})
	before := snapshot(t, source.Client, f.moves)
	stays := snapshot(t, source.Client, f.stays)

	r := capstanctl(t, moveArgs(t, f.ns, "--dry-run")...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, ". ExampleMachine m1 (owned by Cluster c1)\n")
	require.NotContains(t, r.stdout, "Stray")

	r = capstanctl(t, moveArgs(t, f.ns)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Resumed in the target: 1 Cluster, 1 object\n", "the ExampleMachine was paused")
	requireMoved(t, f, before, stays)
}
