package move

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Copied counts what CopyToTarget did.
type Copied struct {
	// Copies are the objects as the target holds them, in the plan's order.
	Copies []*unstructured.Unstructured
	// Created, Updated and Unchanged count copies by what this run had to do.
	Created, Updated, Unchanged int
}

// CopyToTarget creates the copy of every object of plan in the target, owners first, so
// that each owner reference can point at the owner's copy, then writes the copy's status
// through the status subresource where the target's CRD has one (a create drops it
// there). A copy an earlier run left (t.Copies) is left alone once that run resumed it
// (the target's providers own it then); otherwise it is updated when it differs from the
// source object and its status written again when that differs, so a re-run ends with
// the same objects and no duplicates. A global object is created only when the target lacks
// it (copyGlobal).
func CopyToTarget(ctx context.Context, target client.Client, plan *Plan, t *Target) (Copied, error) {
	var res Copied
	if plan.Namespace != "" {
		if err := ensureNamespace(ctx, target, plan.Namespace); err != nil {
			return res, err
		}
	}
	moved := make(map[types.UID]bool, len(plan.Objects))
	for _, o := range plan.Objects {
		moved[o.GetUID()] = true
	}
	copies := make(map[types.UID]types.UID, len(plan.Objects))
	for _, o := range plan.Objects {
		if existing := t.Copies[o.GetUID()]; existing != nil && resumed(o, existing) {
			// Owned by the target's providers since an earlier run resumed it: the source
			// object may since have lost its finalizers to the deletion phase, and its
			// status is stale, so neither is copied again.
			res.Unchanged++
			copies[o.GetUID()] = existing.GetUID()
			res.Copies = append(res.Copies, existing)
			continue
		}
		desired := CopyOf(o)
		refs, err := TargetOwnerRefs(o.GetOwnerReferences(), moved, copies)
		if err != nil {
			return res, fmt.Errorf("copying %s: %w", describe(o), err)
		}
		desired.SetOwnerReferences(refs)
		got, err := res.copyObject(ctx, target, plan, t, o, desired)
		if err != nil {
			return res, err
		}
		copies[o.GetUID()] = got.GetUID()
		res.Copies = append(res.Copies, got)
	}
	return res, nil
}

// copyObject writes desired, the copy of o, to the target and returns it as the target holds
// it: a global object only when the target lacks it (copyGlobal), any other through write,
// then its status where the target's CRD has the subresource.
func (res *Copied) copyObject(ctx context.Context, target client.Client, plan *Plan, t *Target, o, desired *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	separateStatus := t.StatusSubresource[o.GroupVersionKind().GroupKind()]
	if plan.Global[o.GetUID()] {
		got, err := res.copyGlobal(ctx, target, desired, o, separateStatus)
		if err != nil {
			return nil, fmt.Errorf("copying %s to the target: %w", describe(o), err)
		}
		return got, nil
	}
	got, err := res.write(ctx, target, desired, t.Copies[o.GetUID()], separateStatus)
	if err != nil {
		return nil, fmt.Errorf("copying %s to the target: %w", describe(o), err)
	}
	if separateStatus {
		if err := writeStatus(ctx, target, got, o); err != nil {
			return nil, fmt.Errorf("writing the status of %s in the target: %w", describe(o), err)
		}
	}
	return got, nil
}

// write creates desired, or brings existing (a copy of the same source object) in line
// with it, and returns the copy as the target holds it.
func (res *Copied) write(ctx context.Context, target client.Client, desired, existing *unstructured.Unstructured, separateStatus bool) (*unstructured.Unstructured, error) {
	if existing == nil {
		created := desired.DeepCopy()
		err := target.Create(ctx, created)
		if err == nil {
			res.Created++
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		// Created by someone else since the preflight read the namespace: reuse it only
		// if it is a copy of the same object (another move run), never overwrite it.
		if existing, err = get(ctx, target, desired); err != nil {
			return nil, err
		}
		if from := existing.GetAnnotations()[MovedFromUIDAnnotation]; from != desired.GetAnnotations()[MovedFromUIDAnnotation] {
			return nil, fmt.Errorf("%s appeared in the target and is not a copy of the source's: delete it from the target, then move again", describe(desired))
		}
	}
	// Finalizers the copy has and the source lacks stay: the deletion phase strips the
	// source's before deleting it, and an interrupted deletion must not cost the copy its own.
	desired.SetFinalizers(union(desired.GetFinalizers(), existing.GetFinalizers()))
	if !differs(existing, desired, separateStatus) {
		res.Unchanged++
		return existing, nil
	}
	updated := desired.DeepCopy()
	updated.SetResourceVersion(existing.GetResourceVersion())
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := target.Update(ctx, updated)
		if apierrors.IsConflict(err) {
			fresh, getErr := get(ctx, target, desired)
			if getErr != nil {
				return getErr
			}
			updated = desired.DeepCopy()
			updated.SetResourceVersion(fresh.GetResourceVersion())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Updated++
	return updated, nil
}

// resumed reports whether copy was already resumed by an earlier run: the move paused
// src, and copy no longer carries the mark. Every copy existed before any was resumed.
func resumed(src, copy *unstructured.Unstructured) bool {
	return src.GetAnnotations()[PausedByMoveAnnotation] != "" && copy.GetAnnotations()[PausedByMoveAnnotation] == ""
}

// union is a followed by the elements of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// writeStatus writes the status of src to its copy got, unless it is already there.
func writeStatus(ctx context.Context, target client.Client, got, src *unstructured.Unstructured) error {
	status, found, err := unstructured.NestedFieldCopy(src.Object, "status")
	if err != nil || !found {
		return err
	}
	if current, _, _ := unstructured.NestedFieldNoCopy(got.Object, "status"); equality.Semantic.DeepEqual(current, status) {
		return nil
	}
	// A target controller may write the copy's status (its Paused condition) meanwhile:
	// read again and retry on conflict.
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := unstructured.SetNestedField(got.Object, status, "status"); err != nil {
			return err
		}
		err := target.Status().Update(ctx, got)
		if apierrors.IsConflict(err) {
			fresh, getErr := get(ctx, target, got)
			if getErr != nil {
				return getErr
			}
			*got = *fresh
		}
		return err
	})
}

// differs reports whether existing must be updated to match desired: metadata the copy
// takes from the source, and every top-level field but status when the status
// subresource keeps it apart.
func differs(existing, desired *unstructured.Unstructured, separateStatus bool) bool {
	if !maps.Equal(existing.GetLabels(), desired.GetLabels()) || !maps.Equal(existing.GetAnnotations(), desired.GetAnnotations()) ||
		!slices.Equal(existing.GetFinalizers(), desired.GetFinalizers()) || !sameOwners(existing.GetOwnerReferences(), desired.GetOwnerReferences()) {
		return true
	}
	for _, o := range []*unstructured.Unstructured{existing, desired} {
		for field := range o.Object {
			if field == "metadata" || (field == "status" && separateStatus) {
				continue
			}
			if !equality.Semantic.DeepEqual(existing.Object[field], desired.Object[field]) {
				return true
			}
		}
	}
	return false
}

func sameOwners(a, b []metav1.OwnerReference) bool {
	return (len(a) == 0 && len(b) == 0) || equality.Semantic.DeepEqual(a, b)
}

func get(ctx context.Context, c client.Reader, like *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(like.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(like), o); err != nil {
		return nil, err
	}
	return o, nil
}

// ensureNamespace creates the namespace in the target unless it exists.
func ensureNamespace(ctx context.Context, target client.Client, name string) error {
	ns := &corev1.Namespace{}
	err := target.Get(ctx, client.ObjectKey{Name: name}, ns)
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return explainTarget(err, "Namespace "+name)
	}
	ns.Name = name
	if err := target.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Namespace %s in the target: %w", name, err)
	}
	return nil
}
