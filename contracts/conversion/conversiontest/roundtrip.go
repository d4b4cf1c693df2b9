/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package conversiontest checks that conversions between an old API version and v1beta2 lose
// nothing: random objects of either version survive the round trip through the other, as the
// conversion-data annotation promises. Test code only; it owns no conversion.
package conversiontest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// fuzzIterations per kind and direction; ten times as many find nothing more and take minutes on two cores.
const FuzzIterations = 200

// Resolver stands in for the CRD contract lookup: every group is served at v1beta2.
var Resolver = conversion.ResolverFunc(func(_ context.Context, gk schema.GroupKind) (string, error) {
	return schema.GroupVersion{Group: gk.Group, Version: "v1beta2"}.String(), nil
})

// Filler makes random objects whose values the API server could hold: whole-second times (the
// JSON form), well-formed group names, IntOrStrings of a real type, and failure domain lists
// that are sorted and unique (as the v1beta2 schema requires).
func Filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.NewTime(time.Unix(c.Int63n(2e9), 0).UTC()) },
		// Topology variable values are JSON documents: random bytes are not one.
		func(j *apiextensionsv1.JSON, c randfill.Continue) { j.Raw = []byte(strconv.Quote(token(c))) },
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(fmt.Sprintf("%d%%", c.Intn(100)))
			}
		},
		func(r *corev1.ObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.APIVersion = token(c) + ".example.com/v" + fmt.Sprint(c.Intn(3))
		},
		func(r *clusterv1.ContractVersionedObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.APIGroup = token(c) + ".example.com"
		},
		func(fds *[]clusterv1.FailureDomain, c randfill.Continue) {
			seen := map[string]bool{}
			for range c.Intn(4) {
				var fd clusterv1.FailureDomain
				c.Fill(&fd)
				if !seen[fd.Name] {
					seen[fd.Name] = true
					*fds = append(*fds, fd)
				}
			}
			sort.Slice(*fds, func(i, j int) bool { return (*fds)[i].Name < (*fds)[j].Name })
		},
	)
}

func token(c randfill.Continue) string {
	return strings.Map(func(r rune) rune { return 'a' + r%26 }, fmt.Sprint(c.Uint64()))
}

// RoundTrip checks both directions for one kind: v1beta2 -> v1beta1 -> v1beta2 and
// v1beta1 -> v1beta2 -> v1beta1 give back the object they started from, once the
// conversion-data annotation each conversion leaves behind is removed.
func RoundTrip[H, S client.Object](t *testing.T, newHub func() H, newSpoke func() S,
	up func(context.Context, S, H) error, down func(context.Context, H, S, conversion.APIVersionResolver) error) {
	t.Helper()
	ctx := context.Background()
	for i := range FuzzIterations {
		f := Filler(int64(i))

		hub := newHub()
		f.Fill(hub)
		hub.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		spoke, back := newSpoke(), newHub()
		if err := down(ctx, hub.DeepCopyObject().(H), spoke, Resolver); err != nil {
			t.Fatalf("seed %d: v1beta2 -> v1beta1: %v", i, err)
		}
		if err := up(ctx, spoke, back); err != nil {
			t.Fatalf("seed %d: v1beta1 -> v1beta2: %v", i, err)
		}
		requireSame(t, i, "v1beta2 -> v1beta1 -> v1beta2", hub, back)

		spoke = newSpoke()
		f.Fill(spoke)
		spoke.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		hub, spokeBack := newHub(), newSpoke()
		if err := up(ctx, spoke.DeepCopyObject().(S), hub); err != nil {
			t.Fatalf("seed %d: v1beta1 -> v1beta2: %v", i, err)
		}
		if err := down(ctx, hub, spokeBack, Resolver); err != nil {
			t.Fatalf("seed %d: v1beta2 -> v1beta1: %v", i, err)
		}
		requireSame(t, i, "v1beta1 -> v1beta2 -> v1beta1", spoke, spokeBack)
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
