package conversion

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	require.NoError(t, err)
	return v
}

func encode(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// TestSparse_RecordsOnlyWhatDiffersAndGivesItBackExactly: a list of files (one large) where one
// file has what the baseline lacks records that file alone, with its path and other scalars
// (the unit) but not its neighbours; laid over the same baseline it gives the object back
// exactly, large integers included.
func TestSparse_RecordsOnlyWhatDiffersAndGivesItBackExactly(t *testing.T) {
	large := strings.Repeat("x", 64<<10)
	base := decode(t, `{"files":[{"path":"/big","content":"`+large+`"},{"path":"/a","content":"a"}],
		"generation":6821913012222657579,"labels":{"k":"v","gone":"x"},"list":["a","b"]}`)
	want := decode(t, `{"files":[{"path":"/big","content":"`+large+`"},{"path":"/a","content":"a","append":false}],
		"generation":6821913012222657579,"labels":{"k":"v"},"list":["a","b"],"onlyHere":{"deep":{"n":1}}}`)
	d, changed := sparseDiff(base, want)
	require.True(t, changed)
	require.JSONEq(t, `{"files":{"$elements":[{},{"path":"/a","content":"a","append":false}]},
		"labels":{"gone":null,"k":"v"},"onlyHere":{"deep":{"n":1}}}`, encode(t, d))
	require.Empty(t, cmp.Diff(want, sparseMerge(base, decode(t, encode(t, d)))))

	_, changed = sparseDiff(want, want)
	require.False(t, changed, "nothing to record")
}

// TestSparse_AChangedBaselineKeepsWhatWasRecorded: when a client of the other version changed the
// object, the recorded parts still win and the rest follows the change. What is recorded of an
// object is a unit: a reference whose uid was recorded comes back whole (its own name and
// version, not the uid laid over another reference), and a list element keeps its path.
func TestSparse_AChangedBaselineKeepsWhatWasRecorded(t *testing.T) {
	base := decode(t, `{"spec":{"replicas":1,"ref":{"apiVersion":"g/unresolved","kind":"K","name":"a"},
		"files":[{"path":"/a","mode":"0644"},{"path":"/b","mode":"0644"}]}}`)
	want := decode(t, `{"spec":{"replicas":1,"ref":{"apiVersion":"g/v1","kind":"K","name":"a","uid":"u"},
		"files":[{"path":"/a","mode":"0644"},{"path":"/b","mode":"0644","append":false}]}}`)
	d, _ := sparseDiff(base, want)

	changed := decode(t, `{"spec":{"replicas":3,"ref":{"apiVersion":"g/unresolved","kind":"K","name":"other"},
		"files":[{"path":"/b","mode":"0600"},{"path":"/c","mode":"0644"}]}}`)
	require.JSONEq(t, `{"spec":{"replicas":3,"ref":{"apiVersion":"g/v1","kind":"K","name":"a","uid":"u"},
		"files":[{"path":"/b","mode":"0600"},{"path":"/b","mode":"0644","append":false}]}}`,
		encode(t, sparseMerge(changed, d)))
}

// TestSparse_RoundTripsRandomDocuments: for random documents and random changes of them, laying
// the difference over the base gives the changed document exactly.
func TestSparse_RoundTripsRandomDocuments(t *testing.T) {
	seeds := 500
	if v := os.Getenv("CAPSTAN_SPARSE_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		seeds = n
	}
	for seed := range int64(seeds) {
		r := rand.New(rand.NewSource(seed))
		base := randomValue(r, 4)
		want := mutate(r, base, 4)
		// Both as JSON gives them (numbers as json.Number); a key whose value is null is absent
		// to the Go types the documents are read into.
		b, w := decode(t, encode(t, base)), withoutNulls(decode(t, encode(t, want)))
		d, changed := sparseDiff(b, w)
		// Compared as JSON: go-cmp's diff of unequal nested lists takes minutes.
		if !changed {
			require.JSONEq(t, encode(t, withoutNulls(b)), encode(t, w), "seed %d", seed)
			continue
		}
		got := withoutNulls(sparseMerge(b, decode(t, encode(t, d))))
		require.JSONEq(t, encode(t, w), encode(t, got), "seed %d: base %s, diff %s", seed, encode(t, b), encode(t, d))
	}
}

func randomValue(r *rand.Rand, depth int) any {
	switch k := r.Intn(8); {
	case depth == 0 || k < 3:
		return []any{"s" + fmt.Sprint(r.Intn(3)), r.Int63(), r.Intn(2) == 0, nil, json.Number("1.5")}[r.Intn(5)]
	case k < 6:
		m := map[string]any{}
		for i := range r.Intn(4) {
			m[fmt.Sprint("k", i)] = randomValue(r, depth-1)
		}
		return m
	default:
		l := make([]any, r.Intn(4))
		objects := r.Intn(2) == 0
		for i := range l {
			if objects {
				l[i] = map[string]any{"name": fmt.Sprint("n", i), "v": randomValue(r, depth-1)}
			} else {
				l[i] = randomValue(r, depth-1)
			}
		}
		return l
	}
}

func mutate(r *rand.Rand, v any, depth int) any {
	if r.Intn(4) == 0 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(x)) { // in a fixed order: one seed, one document
			if r.Intn(5) > 0 {
				out[k] = mutate(r, x[k], depth-1)
			}
		}
		if r.Intn(3) == 0 {
			out["added"] = randomValue(r, depth-1)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, mutate(r, e, depth-1))
		}
		if r.Intn(4) == 0 {
			out = append(out, randomValue(r, depth-1))
		}
		return out
	}
	return randomValue(r, depth)
}

func TestRestoreSparse_ConsumesNothingItCannotReadAndNamesTheAnnotation(t *testing.T) {
	meta := &metav1.ObjectMeta{Annotations: map[string]string{DataAnnotation: "{not json", "keep": "me"}}
	raw, ok := takeData(meta)
	require.True(t, ok)
	require.Equal(t, map[string]string{"keep": "me"}, meta.Annotations, "the annotation is consumed")
	err := restoreSparse(raw, struct{}{}, &struct{}{})
	require.Error(t, err)
	require.ErrorContains(t, invalidData(err), "metadata.annotations[cluster.x-k8s.io/conversion-data] is not valid conversion data")
	_, ok = takeData(meta)
	require.False(t, ok)
}

func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutNulls(e)
		}
		return out
	}
	return v
}
