// Package conversionfuzz is the round-trip fuzz test every hub-and-spoke conversion runs
// (capstan.dev/contracts/conversion): random objects of either version go to the other and back
// and must come back as they were. It is imported by tests only; it owns no conversion.
package conversionfuzz

import (
	"context"
	"encoding/json"
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

// Iterations per kind and direction; ten times as many find nothing more and take minutes on two cores.
const Iterations = 200

// Resolver stands in for the CRD contract lookup: every group is served at v1beta2.
var Resolver = conversion.ResolverFunc(func(_ context.Context, gk schema.GroupKind) (string, error) {
	return schema.GroupVersion{Group: gk.Group, Version: "v1beta2"}.String(), nil
})

// Filler makes random objects whose values the API server could hold: whole-second times (the
// JSON form), well-formed group names, IntOrStrings of a real type, and failure domain lists
// that are sorted and unique (as the v1beta2 schema requires); funcs add a kind's own rules.
func Filler(seed int64, funcs ...any) *randfill.Filler {
	base := []any{
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.NewTime(time.Unix(c.Int63n(2e9), 0).UTC()) },
		// Topology variable values are JSON documents: random bytes are not one.
		func(j *apiextensionsv1.JSON, c randfill.Continue) { j.Raw = []byte(strconv.Quote(Token(c))) },
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(fmt.Sprintf("%d%%", c.Intn(100)))
			}
		},
		func(r *corev1.ObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.APIVersion = Token(c) + ".example.com/v" + fmt.Sprint(c.Intn(3))
		},
		func(r *clusterv1.ContractVersionedObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.APIGroup = Token(c) + ".example.com"
		},
		// Conditions often have a type a kind derives its v1beta1 conditions from.
		func(cond *metav1.Condition, c randfill.Continue) {
			c.FillNoCustom(cond)
			if c.Bool() {
				cond.Type = conditionTypes[c.Intn(len(conditionTypes))]
				cond.Status = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}[c.Intn(3)]
			}
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
	}
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(append(base, funcs...)...)
}

// conditionTypes are the v1beta2 condition types v1beta1 conditions are derived from.
var conditionTypes = []string{"Available", "Ready", "InfrastructureReady", "ControlPlaneInitialized", "ControlPlaneAvailable",
	"BootstrapConfigReady", "NodeHealthy", "HealthCheckSucceeded", "OwnerRemediated", "MachinesReady", "MachinesUpToDate",
	"RemediationAllowed", "TopologyReconciled", "DataSecretAvailable", "CertificatesAvailable", "EtcdClusterHealthy",
	"ControlPlaneComponentsHealthy", "LoadBalancerAvailable", "ContainerProvisioned", "BootstrapExecSucceeded",
	"ReplicasReady", "ResourcesApplied", "VariablesReady", "RefVersionsUpToDate"}

// Token is a random lower-case word.
func Token(c randfill.Continue) string {
	return strings.Map(func(r rune) rune { return 'a' + r%26 }, fmt.Sprint(c.Uint64()))
}

// RoundTrip checks both directions for one kind: v1beta2 -> spoke -> v1beta2 and
// spoke -> v1beta2 -> spoke give back the object they started from, once the conversion-data
// annotation each conversion leaves behind is removed. filler (nil: Filler) makes the objects.
func RoundTrip[H, S client.Object](t *testing.T, newHub func() H, newSpoke func() S,
	up func(context.Context, S, H) error, down func(context.Context, H, S, conversion.APIVersionResolver) error,
	filler func(seed int64) *randfill.Filler) {
	t.Helper()
	if filler == nil {
		filler = func(seed int64) *randfill.Filler { return Filler(seed) }
	}
	ctx := context.Background()
	for i := range Iterations {
		f := filler(int64(i))

		hub := newHub()
		f.Fill(hub)
		hub.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		spoke, back := newSpoke(), newHub()
		if err := down(ctx, hub.DeepCopyObject().(H), spoke, Resolver); err != nil {
			t.Fatalf("seed %d: hub -> spoke: %v", i, err)
		}
		if err := up(ctx, spoke, back); err != nil {
			t.Fatalf("seed %d: spoke -> hub: %v", i, err)
		}
		requireNoConditionsRecorded(t, i, back)
		requireSame(t, i, "hub -> spoke -> hub", hub, back)

		spoke = newSpoke()
		f.Fill(spoke)
		spoke.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		hub, spokeBack := newHub(), newSpoke()
		if err := up(ctx, spoke.DeepCopyObject().(S), hub); err != nil {
			t.Fatalf("seed %d: spoke -> hub: %v", i, err)
		}
		if err := down(ctx, hub, spokeBack, Resolver); err != nil {
			t.Fatalf("seed %d: hub -> spoke: %v", i, err)
		}
		requireSame(t, i, "spoke -> hub -> spoke", spoke, spokeBack)
	}
}

// requireNoConditionsRecorded checks a hub written back from a spoke read off a hub that
// recorded no old-version status: whatever v1beta1 conditions that read showed were derived
// (conversion.KindConversion.Derived), and a derived list must not be recorded as if a client
// had written it.
func requireNoConditionsRecorded(t *testing.T, seed int, hub client.Object) {
	t.Helper()
	raw, ok := hub.GetAnnotations()[conversion.DataAnnotation]
	if !ok {
		return
	}
	var recorded struct {
		Status map[string]json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal([]byte(raw), &recorded); err != nil {
		t.Fatalf("seed %d: reading the recorded old-version object: %v", seed, err)
	}
	if c, ok := recorded.Status["conditions"]; ok && string(c) != "null" && string(c) != "[]" {
		t.Fatalf("seed %d: the v1beta1 conditions a read derived were recorded on write-back: %s", seed, c)
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

// PointerList is a Filler func for a pointer to a list of T: nil, or a list (maybe empty), never
// a pointer to a nil list, which JSON, and so the API server, cannot tell from nil.
func PointerList[T any]() func(**[]T, randfill.Continue) {
	return func(p **[]T, c randfill.Continue) { *p = nonNilList[T](c) }
}

func nonNilList[T any](c randfill.Continue) *[]T {
	if c.Bool() {
		return nil
	}
	out := []T{}
	c.Fill(&out)
	if out == nil {
		out = []T{}
	}
	return &out
}

// ShownFiller is a filler for a kind whose old-version status shows a part derived from the hub
// status (conversion.KindConversion.Derived): see Shown. funcs are the kind's other Filler funcs.
func ShownFiller[T any](show func(*T), funcs ...any) func(seed int64) *randfill.Filler {
	return func(seed int64) *randfill.Filler { return Filler(seed, append([]any{Shown(show)}, funcs...)...) }
}

// Shown is a Filler func for an old-version status type: each status is filled at random, then
// given what a read shows of it (show, the kind's KindConversion.ShowDerived), since that is what
// an old-version client holds and writes back.
func Shown[T any](show func(*T)) func(*T, randfill.Continue) {
	return func(s *T, c randfill.Continue) {
		c.FillNoCustom(s)
		show(s)
	}
}
