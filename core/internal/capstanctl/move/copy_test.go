package move

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestDiffers_ComparesWhatTheCopyTakesFromTheSource(t *testing.T) {
	base := func() *unstructured.Unstructured {
		u := obj(core, "Machine", "m")
		u.SetOwnerReferences(nil)
		u.Object["spec"] = map[string]any{"clusterName": "c"}
		u.Object["status"] = map[string]any{"phase": "Running"}
		return u
	}
	for name, tc := range map[string]struct {
		change         func(u *unstructured.Unstructured)
		separateStatus bool
		want           bool
	}{
		"identical":                       {func(*unstructured.Unstructured) {}, true, false},
		"server fields only":              {func(u *unstructured.Unstructured) { u.SetResourceVersion("7"); u.SetUID("other") }, true, false},
		"empty and absent labels":         {func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{}) }, true, false},
		"status kept apart by the server": {func(u *unstructured.Unstructured) { u.Object["status"] = map[string]any{} }, true, false},
		"status in the object":            {func(u *unstructured.Unstructured) { u.Object["status"] = map[string]any{} }, false, true},
		"spec":                            {func(u *unstructured.Unstructured) { u.Object["spec"] = map[string]any{"clusterName": "d"} }, true, true},
		"a field only one side has":       {func(u *unstructured.Unstructured) { u.Object["data"] = map[string]any{} }, true, true},
		"annotation":                      {func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"a": "b"}) }, true, true},
		"finalizer":                       {func(u *unstructured.Unstructured) { u.SetFinalizers([]string{"f"}) }, true, true},
		"owner": {func(u *unstructured.Unstructured) {
			u.SetOwnerReferences([]metav1.OwnerReference{{Kind: "MachineSet", Name: "ms", UID: "x"}})
		}, true, true},
	} {
		existing, desired := base(), base()
		tc.change(existing)
		require.Equal(t, tc.want, differs(existing, desired, tc.separateStatus), name)
	}
}

func TestUnion_KeepsOrderAndAddsWhatIsMissing(t *testing.T) {
	require.Equal(t, []string{"a", "b", "c"}, union([]string{"a", "b"}, []string{"b", "c"}))
	require.Equal(t, []string{"x"}, union(nil, []string{"x"}))
}

func TestResumed_OnlyWhenTheMovePausedTheSourceAndTheCopyLostTheMark(t *testing.T) {
	marked := obj(core, "Machine", "m")
	marked.SetAnnotations(map[string]string{PausedByMoveAnnotation: "true"})
	plain := obj(core, "Machine", "m")
	require.True(t, resumed(marked, plain))
	require.False(t, resumed(marked, marked), "still paused: the resume did not reach it")
	require.False(t, resumed(plain, plain), "not paused by the move (a Secret, or paused by the user): compared instead")
}
