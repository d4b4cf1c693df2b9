package conversion

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// APIVersionResolver names the API version ("group/version") at which a contract reference
// (group and kind only) is written out in an old-version ObjectReference.
type APIVersionResolver interface {
	APIVersion(ctx context.Context, gk schema.GroupKind) (string, error)
}

// CRDContractResolver resolves through the contract label of the kind's CRD, as the core does
// when it reads a referenced object (and as upstream's conversion does).
type CRDContractResolver struct {
	Reader client.Reader
}

// APIVersion implements APIVersionResolver.
func (r CRDContractResolver) APIVersion(ctx context.Context, gk schema.GroupKind) (string, error) {
	v, err := contract.GetContractVersion(ctx, r.Reader, gk)
	if err != nil {
		return "", err
	}
	return v.GroupVersionKind(gk).GroupVersion().String(), nil
}

// ResolverFunc adapts a function to APIVersionResolver.
type ResolverFunc func(ctx context.Context, gk schema.GroupKind) (string, error)

// APIVersion implements APIVersionResolver.
func (f ResolverFunc) APIVersion(ctx context.Context, gk schema.GroupKind) (string, error) {
	return f(ctx, gk)
}

// RefToContract turns an old-version ObjectReference into a contract reference: the group
// comes from apiVersion; version, namespace, uid, resourceVersion and fieldPath have no place in
// it (the caller keeps them in the conversion data). A nil or empty reference is the zero value.
func RefToContract(ref *corev1.ObjectReference, path string) (clusterv1.ContractVersionedObjectReference, error) {
	if ref == nil || (ref.APIVersion == "" && ref.Kind == "" && ref.Name == "") {
		return clusterv1.ContractVersionedObjectReference{}, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return clusterv1.ContractVersionedObjectReference{}, fmt.Errorf("%s.apiVersion %q is not group/version: %w", path, ref.APIVersion, err)
	}
	return clusterv1.ContractVersionedObjectReference{APIGroup: gv.Group, Kind: ref.Kind, Name: ref.Name}, nil
}

// RefFromContract turns a contract reference into an old-version ObjectReference in namespace.
// When stored (the reference as a v1beta1 client last wrote it) still points at the same
// object, it is returned as written, so its version, uid and fieldPath survive; otherwise the
// version is resolved. An undefined reference is nil.
func RefFromContract(ctx context.Context, ref clusterv1.ContractVersionedObjectReference, namespace string,
	stored *corev1.ObjectReference, resolver APIVersionResolver, path string) (*corev1.ObjectReference, error) {
	if !ref.IsDefined() {
		return nil, nil
	}
	if stored != nil && stored.Kind == ref.Kind && stored.Name == ref.Name {
		if gv, err := schema.ParseGroupVersion(stored.APIVersion); err == nil && gv.Group == ref.APIGroup {
			return stored.DeepCopy(), nil
		}
	}
	if resolver == nil {
		return nil, fmt.Errorf("%s: no API version resolver to write %s %s as an ObjectReference", path, ref.GroupKind(), ref.Name)
	}
	apiVersion, err := resolver.APIVersion(ctx, ref.GroupKind())
	if err != nil {
		return nil, fmt.Errorf("%s: resolving the API version of %s: %w", path, ref.GroupKind(), err)
	}
	return &corev1.ObjectReference{APIVersion: apiVersion, Kind: ref.Kind, Name: ref.Name, Namespace: namespace}, nil
}

// DurationToSeconds truncates a duration to whole seconds (capped at MaxInt32), as upstream.
func DurationToSeconds(d *metav1.Duration) *int32 {
	if d == nil {
		return nil
	}
	s := int64(d.Duration / time.Second)
	if s > math.MaxInt32 {
		s = math.MaxInt32
	}
	out := int32(s)
	return &out
}

// SecondsToDuration is the inverse of DurationToSeconds. When stored (the duration a v1beta1
// client last wrote) truncates to the same seconds, it is returned as written, so "1.5s" stays
// "1.5s".
func SecondsToDuration(s *int32, stored *metav1.Duration) *metav1.Duration {
	if s == nil {
		return nil
	}
	if stored != nil && DurationToSeconds(stored) != nil && *DurationToSeconds(stored) == *s {
		return stored.DeepCopy()
	}
	return &metav1.Duration{Duration: time.Duration(*s) * time.Second}
}

// BoolIntent maps an old-version bool onto a v1beta2 *bool: true stays true; false becomes nil
// unless restored (the v1beta2 value recorded in the conversion data) said false explicitly.
func BoolIntent(v bool, restored *bool) *bool {
	if v {
		t := true
		return &t
	}
	if restored != nil && !*restored {
		f := false
		return &f
	}
	return nil
}

// Int32Intent maps an old-version int32 onto a v1beta2 *int32: 0 becomes nil unless restored
// said 0 explicitly.
func Int32Intent(v int32, restored *int32) *int32 {
	if v != 0 || (restored != nil && *restored == 0) {
		return &v
	}
	return nil
}

// Deref returns *p, or the zero value for nil.
func Deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Copy returns a pointer to a copy of *p, or nil for nil: a converted object never shares a
// pointer field with its source.
func Copy[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// IsZero reports whether v is its type's zero value (every field unset, nil lists and maps).
func IsZero[T any](v T) bool {
	return reflect.ValueOf(&v).Elem().IsZero()
}

// NonZero returns a pointer to v, or nil for the zero value.
func NonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// TimeFromPtr returns *t, or the zero time for nil.
func TimeFromPtr(t *metav1.Time) metav1.Time {
	if t == nil {
		return metav1.Time{}
	}
	return *t
}

// TimeToPtr returns a pointer to t, or nil for the zero time.
func TimeToPtr(t metav1.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
