// Package conversiontest checks that a kind's conversion between an old API version (the
// spoke) and v1beta2 (the hub) is lossless in both directions, on random objects. Every
// provider's fuzz tests use it; it runs no API server.
package conversiontest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"

	"capstan.dev/contracts/conversion"
)

// RoundTrip checks both directions for one kind over iterations seeds: v1beta2 -> spoke ->
// v1beta2 and spoke -> v1beta2 -> spoke give back the object they started from, once the
// conversion-data annotation each conversion leaves behind is removed. filler makes the random
// objects (values the API server could hold) for a seed.
func RoundTrip[H, S client.Object](t *testing.T, iterations int, filler func(seed int64) *randfill.Filler,
	newHub func() H, newSpoke func() S, up func(context.Context, S, H) error, down func(context.Context, H, S) error) {
	t.Helper()
	ctx := context.Background()
	for i := range iterations {
		f := filler(int64(i))

		hub := newHub()
		f.Fill(hub)
		hub.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		spoke, back := newSpoke(), newHub()
		if err := down(ctx, hub.DeepCopyObject().(H), spoke); err != nil {
			t.Fatalf("seed %d: hub -> spoke: %v", i, err)
		}
		if err := up(ctx, spoke, back); err != nil {
			t.Fatalf("seed %d: spoke -> hub: %v", i, err)
		}
		requireSame(t, i, "hub -> spoke -> hub", hub, back)

		spoke = newSpoke()
		f.Fill(spoke)
		spoke.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		hub, spokeBack := newHub(), newSpoke()
		if err := up(ctx, spoke.DeepCopyObject().(S), hub); err != nil {
			t.Fatalf("seed %d: spoke -> hub: %v", i, err)
		}
		if err := down(ctx, hub, spokeBack); err != nil {
			t.Fatalf("seed %d: hub -> spoke: %v", i, err)
		}
		requireSame(t, i, "spoke -> hub -> spoke", spoke, spokeBack)
	}
}

func requireSame(t *testing.T, seed int, what string, want, got client.Object) {
	t.Helper()
	for _, o := range []client.Object{want, got} {
		a := o.GetAnnotations()
		delete(a, conversion.DataAnnotation)
		if len(a) == 0 {
			o.SetAnnotations(nil)
		}
	}
	if !equality.Semantic.DeepEqual(want, got) {
		t.Fatalf("seed %d: %s is lossy (-want +got):\n%s", seed, what, cmp.Diff(want, got))
	}
}
