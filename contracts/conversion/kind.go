package conversion

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// How every kind converts (see DataAnnotation):
//
//   - up (old version -> v1beta2): the v1beta2 object recorded in the annotation, if any, settles
//     what the old version cannot say (false vs unset, 0 vs unset, v1beta2-only fields); what of
//     the old spec and status v1beta2 cannot express is then recorded on the v1beta2 object;
//   - down (v1beta2 -> old version): fields are mapped; where the old spec or status recorded on
//     the object still converts up to exactly the current v1beta2 one, it is returned as written
//     (so nothing an old-version client wrote is lost, and nothing recorded can be stale: once a
//     v1beta2 client changed the spec, the mapping wins, keeping only what the stored old spec
//     says that still means the same); what of the v1beta2 object the old version cannot
//     express is then recorded on the old one.
//
// A recording is sparse (sparse.go): it is read back by laying it over what the object being
// converted gives with nothing recorded (plainUp, plainDown), which yields the whole recorded
// object again, as before, while nothing changed it.

// KindConversion is one kind's spec and status conversions between an old version (the spoke)
// and v1beta2 (the hub); Up and Down are the steps every kind shares. A kind without status
// uses struct{} for both status types and returns the zero value.
type KindConversion[SpokeSpec, SpokeStatus, HubSpec, HubStatus any] struct {
	// SpecUp maps a spoke spec; restored is the hub spec recorded by the last down-conversion
	// (zero when there was none).
	SpecUp func(in *SpokeSpec, restored *HubSpec) (HubSpec, error)
	// SpecDown maps a hub spec; stored is the spoke spec recorded by the last up-conversion
	// (nil when there was none), namespace the object's.
	SpecDown func(ctx context.Context, in *HubSpec, namespace string, stored *SpokeSpec,
		resolver APIVersionResolver) (SpokeSpec, error)
	StatusUp   func(in *SpokeStatus, restored *HubStatus) HubStatus
	StatusDown func(in *HubStatus) SpokeStatus
	// Derived (optional) is the part of a spoke status that old-version readers are shown but
	// the hub never stores (upstream's v1beta1 conditions, derived from the v1beta2 ones).
	Derived StatusDerivation[SpokeStatus, HubStatus]
}

// StatusDerivation is a part of an old-version status derived from the hub status on every
// down-conversion. It is shown, never stored: Down shows it where the old status recorded
// nothing of it, and Up does not record it, since a recorded copy would outlive the hub status
// it was derived from (an old-version client that reads, then writes the object back, sends it).
type StatusDerivation[SpokeStatus, HubStatus any] interface {
	// Show sets the derived part of spoke from hub when spoke has none of it.
	Show(hub *HubStatus, spoke *SpokeStatus)
	// Strip clears the derived part of spoke when it is exactly what Show sets from hub.
	Strip(hub *HubStatus, spoke *SpokeStatus)
}

// SpecOnly is the conversion of a kind without status (its status types are struct{}).
func SpecOnly[SS, HS any](specUp func(in *SS, restored *HS) (HS, error),
	specDown func(ctx context.Context, in *HS, namespace string, stored *SS, resolver APIVersionResolver) (SS, error)) KindConversion[SS, struct{}, HS, struct{}] {
	return KindConversion[SS, struct{}, HS, struct{}]{
		SpecUp: specUp, SpecDown: specDown,
		StatusUp:   func(*struct{}, *struct{}) (out struct{}) { return out },
		StatusDown: func(*struct{}) (out struct{}) { return out },
	}
}

// spokeData is what a v1beta2 object keeps of the old-version object it was last written as.
type spokeData[Spec, Status any] struct {
	Spec   Spec   `json:"spec"`
	Status Status `json:"status"`
}

// hubData is the v1beta2 object recorded on an old-version one, as far as conversions read it.
type hubData[Spec, Status any] struct {
	Spec   Spec   `json:"spec"`
	Status Status `json:"status"`
}

// Up converts a spoke object's metadata, spec and status into the hub's.
func (k KindConversion[SS, SSt, HS, HSt]) Up(srcMeta *metav1.ObjectMeta, srcSpec *SS, srcStatus *SSt,
	dstMeta *metav1.ObjectMeta, dstSpec *HS, dstStatus *HSt) error {
	*dstMeta = *srcMeta.DeepCopy()
	restored := &hubData[HS, HSt]{}
	if raw, ok := takeData(dstMeta); ok {
		if err := restoreSparse(raw, k.plainUp(srcSpec, srcStatus), restored); err != nil {
			return invalidData(err)
		}
	}
	spec, err := k.SpecUp(srcSpec, &restored.Spec)
	if err != nil {
		return err
	}
	*dstSpec = spec
	*dstStatus = k.StatusUp(srcStatus, &restored.Status)
	recorded := *srcStatus // a shallow copy: Strip replaces fields, it never writes into them
	if k.Derived != nil {
		k.Derived.Strip(dstStatus, &recorded)
	}
	return recordSparse(k.plainDown(dstMeta.Namespace, dstSpec, dstStatus), spokeData[SS, SSt]{Spec: *srcSpec, Status: recorded}, dstMeta)
}

// ShowDerived adds to an old-version status what a read of it shows derived (see Derived), so
// tests can build objects as old-version readers see them.
func (k KindConversion[SS, SSt, HS, HSt]) ShowDerived(s *SSt) {
	if k.Derived == nil {
		return
	}
	var none HSt
	hub := k.StatusUp(s, &none)
	k.Derived.Show(&hub, s)
}

// Down converts a hub object (whose parts are srcMeta, srcSpec, srcStatus) into a spoke's.
func (k KindConversion[SS, SSt, HS, HSt]) Down(ctx context.Context, resolver APIVersionResolver,
	srcMeta *metav1.ObjectMeta, srcSpec *HS, srcStatus *HSt, dstMeta *metav1.ObjectMeta, dstSpec *SS, dstStatus *SSt) error {
	*dstMeta = *srcMeta.DeepCopy()
	var storedSpec *SS
	var storedStatus *SSt
	if raw, ok := takeData(dstMeta); ok {
		stored := &spokeData[SS, SSt]{}
		if err := restoreSparse(raw, k.plainDown(srcMeta.Namespace, srcSpec, srcStatus), stored); err != nil {
			return invalidData(err)
		}
		storedSpec, storedStatus = &stored.Spec, &stored.Status
	}
	spec, err := k.SpecDown(ctx, srcSpec, srcMeta.Namespace, storedSpec, resolver)
	if err != nil {
		return err
	}
	*dstSpec = Prefer(spec, storedSpec, func(s *SS) (HS, error) { return k.SpecUp(s, srcSpec) }, *srcSpec)
	*dstStatus = Prefer(k.StatusDown(srcStatus), storedStatus, NoErr(func(s *SSt) HSt { return k.StatusUp(s, srcStatus) }), *srcStatus)
	if k.Derived != nil {
		k.Derived.Show(srcStatus, dstStatus)
	}
	return recordSparse(k.plainUp(dstSpec, dstStatus), hubData[HS, HSt]{Spec: *srcSpec, Status: *srcStatus}, dstMeta)
}

// plainUp is the baseline of the v1beta2 data recorded on an old-version object: what the old
// spec and status convert to with nothing restored. Nil (everything is recorded) when the spec
// does not convert.
func (k KindConversion[SS, SSt, HS, HSt]) plainUp(spec *SS, status *SSt) *hubData[HS, HSt] {
	var none hubData[HS, HSt]
	s, err := k.SpecUp(spec, &none.Spec)
	if err != nil {
		return nil
	}
	return &hubData[HS, HSt]{Spec: s, Status: k.StatusUp(status, &none.Status)}
}

// plainDown is the baseline of the old-version data recorded on a v1beta2 object: what the
// v1beta2 spec and status convert to with nothing stored. References are written with the
// version "unresolved" rather than looked up, so the baseline depends on the object alone (and
// a reference an old-version client wrote is always recorded, as written).
func (k KindConversion[SS, SSt, HS, HSt]) plainDown(namespace string, spec *HS, status *HSt) *spokeData[SS, SSt] {
	s, err := k.SpecDown(context.Background(), spec, namespace, nil, unresolved)
	if err != nil {
		return nil
	}
	return &spokeData[SS, SSt]{Spec: s, Status: k.StatusDown(status)}
}

// unresolved names every group's version "unresolved" (see plainDown).
var unresolved = ResolverFunc(func(_ context.Context, gk schema.GroupKind) (string, error) {
	return schema.GroupVersion{Group: gk.Group, Version: "unresolved"}.String(), nil
})

// Prefer returns stored when it converts up to current, else mapped.
func Prefer[T, H any](mapped T, stored *T, up func(*T) (H, error), current H) T {
	if stored == nil {
		return mapped
	}
	converted, err := up(stored)
	if err != nil || !equality.Semantic.DeepEqual(converted, current) {
		return mapped
	}
	return *stored
}

// NoErr adapts a conversion that cannot fail to Prefer.
func NoErr[T, H any](f func(*T) H) func(*T) (H, error) {
	return func(in *T) (H, error) { return f(in), nil }
}
