package envtest

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// The helpers below let an API package's tests ask the real API server what its
// CRD schemas and CEL rules admit, so each table row states only the object and
// the message a user would read.

// RequireInvalid creates obj and requires the API server to refuse it as
// Invalid with an error containing every one of wantMessages.
func (e *Environment) RequireInvalid(t testing.TB, obj client.Object, wantMessages ...string) {
	t.Helper()
	err := e.Client.Create(context.Background(), obj)
	if err == nil {
		t.Fatalf("the API server accepted an invalid %T", obj)
	}
	t.Logf("API server: %v", err)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	for _, msg := range wantMessages {
		if !strings.Contains(err.Error(), msg) {
			t.Fatalf("the error does not say %q: %v", msg, err)
		}
	}
}

// RequireStoredAsSent creates sent, reads it back into a new object of its type
// and requires part (usually the spec) to be unchanged: a field the schema
// drops or renames shows up here.
func (e *Environment) RequireStoredAsSent(t testing.TB, sent client.Object, part func(client.Object) any) {
	t.Helper()
	ctx := context.Background()
	want := part(sent.DeepCopyObject().(client.Object))
	if err := e.Client.Create(ctx, sent); err != nil {
		t.Fatalf("creating %T: %v", sent, err)
	}
	got := reflect.New(reflect.TypeOf(sent).Elem()).Interface().(client.Object)
	if err := e.Client.Get(ctx, client.ObjectKeyFromObject(sent), got); err != nil {
		t.Fatalf("reading %T back: %v", sent, err)
	}
	if diff := cmp.Diff(want, part(got)); diff != "" {
		t.Fatalf("stored object differs from the sent one (-sent +stored):\n%s", diff)
	}
}

// WithField returns obj as unstructured with the field at path set to value, or
// removed when value is nil: a way to send what the Go types cannot express,
// such as a string where the schema wants an integer.
func (e *Environment) WithField(t testing.TB, obj client.Object, value any, path ...string) *unstructured.Unstructured {
	t.Helper()
	gvk, err := apiutil.GVKForObject(obj, e.Scheme)
	if err != nil {
		t.Fatalf("%v", err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatalf("%v", err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	if value == nil {
		unstructured.RemoveNestedField(u.Object, path...)
		return u
	}
	if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
		t.Fatalf("setting %s: %v", strings.Join(path, "."), err)
	}
	return u
}
