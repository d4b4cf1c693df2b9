package clusterresourceset

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestParseManifests_OrdersKeysThenNamespacesAndCRDsFirst(t *testing.T) {
	data := map[string][]byte{
		"b.yaml": []byte("# a comment only\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: ns1\n" +
			"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n---\n"),
		"a.json": []byte(` [{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds","namespace":"kube-system"}},
			{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"foos.example.com"}}]`),
		"c.yaml": []byte(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa"}}`),
	}
	m, err := parseManifests(data)
	require.NoError(t, err)
	var got []string
	for _, o := range m.objects {
		got = append(got, o.GetKind()+"/"+o.GetName())
	}
	require.Empty(t, cmp.Diff([]string{
		"CustomResourceDefinition/foos.example.com", "DaemonSet/ds", // a.json
		"Namespace/ns1", "ConfigMap/cm", // b.yaml
		"ServiceAccount/sa", // c.yaml
	}, got))
	// upstream's hash: the values concatenated in key order
	want := sha256.Sum256(append(append(append([]byte{}, data["a.json"]...), data["b.yaml"]...), data["c.yaml"]...))
	require.Equal(t, fmt.Sprintf("sha256:%x", want), m.hash)
}

func TestParseManifests_HashChangesWithContentOnly(t *testing.T) {
	a, err := parseManifests(map[string][]byte{"x": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")})
	require.NoError(t, err)
	again, err := parseManifests(map[string][]byte{"x": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")})
	require.NoError(t, err)
	b, err := parseManifests(map[string][]byte{"x": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")})
	require.NoError(t, err)
	require.Equal(t, a.hash, again.hash)
	require.NotEqual(t, a.hash, b.hash)
}

func TestParseManifests_NamesTheKeyAndDocumentOfBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		data map[string][]byte
		want string
	}{
		{"NoData", nil, "it has no data: put the manifests under data"},
		{"NoName", map[string][]byte{"cni.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n")},
			`key "cni.yaml": document 2: v1 ConfigMap has neither metadata.name nor metadata.generateName`},
		{"NoKind", map[string][]byte{"k": []byte("apiVersion: v1\nmetadata:\n  name: a\n")}, `key "k": document 1: object "a" has no kind`},
		{"NoAPIVersion", map[string][]byte{"k": []byte("kind: ConfigMap\nmetadata:\n  name: a\n")}, `key "k": document 1: an object has no apiVersion`},
		{"NotYAML", map[string][]byte{"k": []byte("apiVersion: v1\nkind: [unclosed\n")}, `key "k": document 1: not YAML`},
		{"BadJSONList", map[string][]byte{"k": []byte(`[{"apiVersion": "v1"`)}, `key "k": not a JSON list of objects`},
		{"JSONListItemWithoutName", map[string][]byte{"k": []byte(`[{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}]`)}, `key "k": list item 1: v1 ConfigMap has neither metadata.name nor metadata.generateName`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseManifests(tc.data)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestNameGenerated_IsStableAndTellsObjectsApart: an object with generateName gets the same name
// on every parse (so a retry finds what an earlier attempt created), a name the API server could
// have made (generateName cut to 58, five characters of its alphabet), and another name for other
// content, another ClusterResourceSet or resource, or a second identical object.
func TestNameGenerated_IsStableAndTellsObjectsApart(t *testing.T) {
	parse := func(seed, doc string) []string {
		m, err := parseManifests(map[string][]byte{"k": []byte(doc)})
		require.NoError(t, err)
		require.NoError(t, nameGenerated(m.objects, seed))
		var names []string
		for _, o := range m.objects {
			names = append(names, o.GetName())
		}
		return names
	}
	job := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: install-\nspec:\n  parallelism: 1\n"
	named := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixed\n  generateName: ignored-\n"
	first := parse("crs/ConfigMap/a", job+"---\n"+job+named)
	require.Len(t, first, 3)
	require.Regexp(t, `^install-[bcdfghjklmnpqrstvwxz2456789]{5}$`, first[0])
	require.NotEqual(t, first[0], first[1], "two identical objects are two objects")
	require.Equal(t, "fixed", first[2], "a name wins over generateName")
	require.Equal(t, first, parse("crs/ConfigMap/a", job+"---\n"+job+named), "stable across parses")
	require.NotEqual(t, first[0], parse("other/ConfigMap/a", job)[0])
	require.NotEqual(t, first[0], parse("crs/ConfigMap/a", strings.Replace(job, "parallelism: 1", "parallelism: 2", 1))[0])

	long := strings.Repeat("x", 70)
	got := parse("crs/ConfigMap/a", strings.Replace(job, "install-", long, 1))[0]
	require.Len(t, got, 63)
	require.True(t, strings.HasPrefix(got, strings.Repeat("x", 58)))
}
