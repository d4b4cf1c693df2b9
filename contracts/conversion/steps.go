package conversion

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// How every kind converts, whatever its provider:
//
//   - up (old version -> v1beta2): the v1beta2 object recorded in the annotation, if any, settles
//     what the old version cannot say (false vs unset, 0 vs unset, v1beta2-only fields); the
//     old-version spec and status are then recorded on the v1beta2 object;
//   - down (v1beta2 -> old version): fields are mapped; where the old-version spec or status
//     recorded on the object still converts up to exactly the current v1beta2 one, it is returned
//     as written (so nothing an old-version client wrote is lost, and nothing recorded can be
//     stale: once a v1beta2 client changed the spec, the mapping wins); the v1beta2 object is then
//     recorded on the old-version one.

// Steps are one kind's spec and status conversions between an old version (the spoke) and
// v1beta2 (the hub); Up and Down add what every kind shares: the annotation, and preferring
// what an old-version client wrote while it still holds. A kind without status uses struct{}.
type Steps[SpokeSpec, SpokeStatus, HubSpec, HubStatus any] struct {
	// SpecUp maps the spec up; restored is the v1beta2 spec recorded on the spoke (zero if none).
	SpecUp func(in *SpokeSpec, restored *HubSpec) (HubSpec, error)
	// SpecDown maps the spec down; stored is the spoke spec recorded on the hub (nil if none),
	// namespace the object's, resolver names the API version of contract references.
	SpecDown func(ctx context.Context, in *HubSpec, namespace string, stored *SpokeSpec,
		resolver APIVersionResolver) (SpokeSpec, error)
	// StatusUp maps the status up; restored is the v1beta2 status recorded on the spoke.
	StatusUp func(in *SpokeStatus, restored *HubStatus) HubStatus
	// StatusDown maps the status down.
	StatusDown func(in *HubStatus) SpokeStatus
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

// Up converts an old-version object (src*) to v1beta2 (dst*).
func (k Steps[SS, SSt, HS, HSt]) Up(srcMeta *metav1.ObjectMeta, srcSpec *SS, srcStatus *SSt,
	dstMeta *metav1.ObjectMeta, dstSpec *HS, dstStatus *HSt) error {
	*dstMeta = *srcMeta.DeepCopy()
	restored := &hubData[HS, HSt]{}
	if _, err := UnmarshalData(dstMeta, restored); err != nil {
		return err
	}
	spec, err := k.SpecUp(srcSpec, &restored.Spec)
	if err != nil {
		return err
	}
	*dstSpec = spec
	*dstStatus = k.StatusUp(srcStatus, &restored.Status)
	return MarshalData(spokeData[SS, SSt]{Spec: *srcSpec, Status: *srcStatus}, dstMeta)
}

// Down converts a v1beta2 object (hub, whose parts are src*) to the old version (dst*).
func (k Steps[SS, SSt, HS, HSt]) Down(ctx context.Context, resolver APIVersionResolver, hub runtime.Object,
	srcMeta *metav1.ObjectMeta, srcSpec *HS, srcStatus *HSt, dstMeta *metav1.ObjectMeta, dstSpec *SS, dstStatus *SSt) error {
	*dstMeta = *srcMeta.DeepCopy()
	stored := &spokeData[SS, SSt]{}
	has, err := UnmarshalData(dstMeta, stored)
	if err != nil {
		return err
	}
	var storedSpec *SS
	var storedStatus *SSt
	if has {
		storedSpec, storedStatus = &stored.Spec, &stored.Status
	}
	spec, err := k.SpecDown(ctx, srcSpec, srcMeta.Namespace, storedSpec, resolver)
	if err != nil {
		return err
	}
	*dstSpec = prefer(spec, storedSpec, func(s *SS) (HS, error) { return k.SpecUp(s, srcSpec) }, *srcSpec)
	*dstStatus = prefer(k.StatusDown(srcStatus), storedStatus, func(s *SSt) (HSt, error) { return k.StatusUp(s, srcStatus), nil }, *srcStatus)
	return MarshalHubData(hub, dstMeta)
}

// prefer returns stored when it converts up to current, else mapped.
func prefer[T, H any](mapped T, stored *T, up func(*T) (H, error), current H) T {
	if stored == nil {
		return mapped
	}
	converted, err := up(stored)
	if err != nil || !equality.Semantic.DeepEqual(converted, current) {
		return mapped
	}
	return *stored
}
