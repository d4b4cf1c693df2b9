package movetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/move"
)

type result struct {
	stdout, stderr string
	code           int
}

// capstanctl runs the command in-process; KUBECONFIG points nowhere.
func capstanctl(t *testing.T, args ...string) result {
	t.Helper()
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, args...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// moveArgs are the flags moving namespace ns from the source to the target.
func moveArgs(t *testing.T, ns string, extra ...string) []string {
	t.Helper()
	return append([]string{"move", "--kubeconfig", kubeconfigFile(t, source), "--to-kubeconfig", kubeconfigFile(t, target), "-n", ns}, extra...)
}

func kubeconfigFile(t *testing.T, env *envtest.Environment) string {
	t.Helper()
	return ctltest.KubeconfigFile(t, env)
}

// snapshot reads objs again from c, keyed by kind/namespace/name.
func snapshot(t *testing.T, c client.Reader, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		got, err := read(c, o)
		require.NoError(t, err, "reading %s", key(o))
		out[o.GetNamespace()+"/"+key(o)] = got
	}
	return out
}

func read(c client.Reader, like *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(like.GroupVersionKind())
	err := c.Get(context.Background(), client.ObjectKeyFromObject(like), got)
	return got, err
}

// requireUnchanged requires every object of before to be in the source exactly as it was.
func requireUnchanged(t *testing.T, before map[string]*unstructured.Unstructured) {
	t.Helper()
	for k, o := range before {
		got, err := read(source.Client, o)
		require.NoError(t, err, "%s is still in the source", k)
		require.Equal(t, o.GetResourceVersion(), got.GetResourceVersion(), "%s is unchanged in the source", k)
	}
}

// requireNothingInTarget requires the target to hold none of objs (or not to serve their kind).
func requireNothingInTarget(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		_, err := read(target.Client, o)
		require.True(t, apierrors.IsNotFound(err) || meta.IsNoMatchError(err), "%s must not be in the target: %v", key(o), err)
	}
}

// requireMoved requires every object of before (the source as it was) to be copied
// (requireCopies) and gone from the source, and the objects of stays untouched in the
// source and absent from the target.
func requireMoved(t *testing.T, f *fixture, before, stays map[string]*unstructured.Unstructured) {
	t.Helper()
	requireCopies(t, f, before)
	for k, src := range before {
		_, err := read(source.Client, src)
		require.True(t, apierrors.IsNotFound(err), "%s is gone from the source: %v", k, err)
	}
	requireUnchanged(t, stays)
	var stayed []*unstructured.Unstructured
	for _, o := range stays {
		stayed = append(stayed, o)
	}
	requireNothingInTarget(t, stayed)
}

// requireCopies requires every object of before (the source as it was) to be in the
// target as a move or a restore must leave it: same spec, data, status, labels,
// finalizers and annotations (plus MovedFromUIDAnnotation), owner references pointing at
// the copies' UIDs, Clusters paused only when the user had paused them, and each kind
// exactly as many times as in before.
func requireCopies(t *testing.T, f *fixture, before map[string]*unstructured.Unstructured) {
	t.Helper()
	copies := map[types.UID]*unstructured.Unstructured{}
	for k, src := range before {
		got, err := read(target.Client, src)
		require.NoError(t, err, "%s is in the target", k)
		copies[src.GetUID()] = got
	}
	for k, src := range before {
		got := copies[src.GetUID()]
		require.NotEqual(t, src.GetUID(), got.GetUID())
		want, have := topLevel(src), topLevel(got)
		if src.GetKind() == "Cluster" {
			paused, _, _ := unstructured.NestedBool(got.Object, "spec", "paused")
			require.Equal(t, f.pausedBefore[key(src)], paused, "%s: spec.paused in the target is what it was before the move", k)
			unstructured.RemoveNestedField(want, "spec", "paused")
			unstructured.RemoveNestedField(have, "spec", "paused")
		}
		require.Empty(t, cmp.Diff(want, have), "%s: spec/data differ (-source +target)", k)
		require.Empty(t, cmp.Diff(src.Object["status"], got.Object["status"]), "%s: status differs (-source +target)", k)
		require.Equal(t, src.GetLabels(), got.GetLabels(), "%s: labels", k)
		require.Equal(t, src.GetFinalizers(), got.GetFinalizers(), "%s: finalizers", k)

		// The user's annotations (a pause included) stay; the move's own pause is gone.
		wantAnnotations := map[string]string{move.MovedFromUIDAnnotation: string(src.GetUID())}
		for a, v := range src.GetAnnotations() {
			wantAnnotations[a] = v
		}
		require.Equal(t, wantAnnotations, got.GetAnnotations(), "%s: annotations", k)

		var wantOwners []metav1.OwnerReference
		for _, ref := range src.GetOwnerReferences() {
			if owner, ok := copies[ref.UID]; ok {
				ref.UID = owner.GetUID()
				wantOwners = append(wantOwners, ref)
			}
		}
		require.Empty(t, cmp.Diff(wantOwners, got.GetOwnerReferences(), cmpopts.EquateEmpty()),
			"%s: owner references point at the copies, foreign ones dropped (-want +got)", k)
	}
	requireCounts(t, f.ns, before)
}

// requireCounts requires the target namespace to hold as many objects of each kind of
// before as before does: no duplicates.
func requireCounts(t *testing.T, ns string, before map[string]*unstructured.Unstructured) {
	t.Helper()
	want := map[schema.GroupVersionKind]int{}
	for _, o := range before {
		want[o.GroupVersionKind()]++
	}
	for gvk, n := range want {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, target.Client.List(context.Background(), list, client.InNamespace(ns)))
		require.Len(t, list.Items, n, "%s objects in the target", gvk.Kind)
	}
}

// topLevel is o without metadata and status: spec, or data and type.
func topLevel(o *unstructured.Unstructured) map[string]any {
	out := o.DeepCopy().Object
	delete(out, "metadata")
	delete(out, "status")
	return out
}
