// Package patch writes a reconciled object back at most twice per reconcile — one
// patch for metadata and spec, one for the status subresource — and not at all when
// nothing changed, so a steady-state management cluster sees no writes. It owns only
// the diffing and writing; what to change is the reconciler's business, with one
// exception every controller shares: while an object is paused only its Paused
// condition is written (see Patch). RequeueOnConflict turns the optimistic-lock
// conflicts these patches cause into quiet requeues.
package patch

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Helper remembers an object as it was read.
type Helper struct {
	c      client.Client
	before client.Object
}

// NewHelper snapshots obj; call it right after reading obj.
func NewHelper(obj client.Object, c client.Client) (*Helper, error) {
	if obj == nil {
		return nil, fmt.Errorf("patch helper needs an object")
	}
	return &Helper{c: c, before: obj.DeepCopyObject().(client.Object)}, nil
}

// Patch writes the changes between the snapshot and obj. Metadata and spec go in a
// merge patch guarded by the resourceVersion (lists such as finalizers and
// ownerReferences are replaced whole by a merge patch, so a concurrent writer must
// cause a conflict, not be overwritten); status goes to the status subresource,
// guarded the same way. On
// return obj holds what the server stored, with the desired status, and the client's
// cache shows it (waited for, bounded by CacheWait), so the object's next reconcile does
// not read the version before it.
//
// An object whose Paused condition is True (predicates.SetPausedCondition decided
// so in this reconcile) gets only that condition written: every other change the
// reconcile made — typically a status computed from a scope that read nothing
// because the reconcile stopped early — is dropped, so a paused object keeps its
// conditions and phase (as `capstanctl move` requires) and nothing that counts its
// Ready or Available flips.
func (h *Helper) Patch(ctx context.Context, obj client.Object) error {
	if err := h.keepOnlyPausedConditionWhilePaused(obj); err != nil {
		return err
	}
	before, err := toMap(h.before)
	if err != nil {
		return err
	}
	after, err := toMap(obj)
	if err != nil {
		return err
	}
	specChanged := !equality.Semantic.DeepEqual(withoutStatus(before), withoutStatus(after))
	statusChanged := !equality.Semantic.DeepEqual(before["status"], after["status"])
	if !specChanged && !statusChanged {
		return nil
	}
	desiredStatus := after["status"]

	if specChanged {
		base := h.before.DeepCopyObject().(client.Object)
		generation := obj.GetGeneration()
		if err := h.c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("patching %s: %w", describe(obj), err)
		}
		statusChanged = observeOwnSpecWrite(desiredStatus, generation, obj.GetGeneration()) || statusChanged
	}
	if specChanged && !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) == 0 {
		// Removing the last finalizer of a deleting object deleted it: no status left to write.
		return nil
	}
	if statusChanged {
		// After a spec patch obj carries the server's (old) status: that is the base
		// the status diff is computed against.
		base := obj.DeepCopyObject().(client.Object)
		if specChanged {
			if err := setStatus(obj, desiredStatus); err != nil {
				return err
			}
		} else {
			base = h.before.DeepCopyObject().(client.Object)
		}
		// Guarded too: another controller may own some of the conditions (the
		// MachineSet's UpToDate on a Machine, say), and a merge patch replaces the
		// whole list. A conflict makes the reconcile re-read and recompute instead.
		if err := h.c.Status().Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("patching status of %s: %w", describe(obj), err)
		}
	}
	h.before = obj.DeepCopyObject().(client.Object)
	h.waitForCache(ctx, obj)
	return nil
}

// CacheWait bounds how long Patch waits for its client's cache to show the write it made.
const CacheWait = 2 * time.Second

// waitForCache returns once a read through the helper's client — normally the manager's
// cache — shows obj at the resourceVersion the write produced or a later one, or after
// CacheWait. The next reconcile of the object is often queued already (by the event of a
// provider's write, say) and would otherwise read the version from before this write and
// fail its own patch with a conflict: a wasted write, which `make bench` counted about once
// per Machine. A read error, a resourceVersion that is not a number, or a cancelled context
// ends the wait: it is an optimisation, never a condition of success.
func (h *Helper) waitForCache(ctx context.Context, obj client.Object) {
	want, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	probe := obj.DeepCopyObject().(client.Object)
	deadline := time.Now().Add(CacheWait)
	for {
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(obj), probe); err != nil {
			return
		}
		if got, err := strconv.ParseUint(probe.GetResourceVersion(), 10, 64); err != nil || got >= want || time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// observeOwnSpecWrite moves status.observedGeneration, and the observedGeneration of each
// condition, along with the spec patch just written: the status was computed from exactly that
// spec (the optimistic lock guarantees nobody changed it in between), so it observes the
// generation the patch created. Without it every spec write (a Machine's providerID, say) costs
// a second status write on the next reconcile, only to bump observedGeneration. It reports
// whether it changed the status.
func observeOwnSpecWrite(status any, before, after int64) bool {
	m, ok := status.(map[string]any)
	if !ok || after == before {
		return false
	}
	changed := false
	if og, ok := m["observedGeneration"].(int64); ok && og == before {
		m["observedGeneration"] = after
		changed = true
	}
	conds, _ := m["conditions"].([]any)
	for _, c := range conds {
		if cm, ok := c.(map[string]any); ok {
			if og, ok := cm["observedGeneration"].(int64); ok && og == before {
				cm["observedGeneration"] = after
				changed = true
			}
		}
	}
	return changed
}

// HasChanges reports whether obj differs from the snapshot (for tests and logging).
func (h *Helper) HasChanges(obj client.Object) (bool, error) {
	before, err := toMap(h.before)
	if err != nil {
		return false, err
	}
	after, err := toMap(obj)
	if err != nil {
		return false, err
	}
	return !equality.Semantic.DeepEqual(before, after), nil
}

func toMap(obj client.Object) (map[string]any, error) {
	// For unstructured objects the converter hands back the object's own map: work
	// on a copy, the edits below must not touch the caller's object.
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj.DeepCopyObject())
	if err != nil {
		return nil, fmt.Errorf("converting %s: %w", describe(obj), err)
	}
	// Fields the server owns never count as a change.
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
		delete(md, "resourceVersion")
	}
	return m, nil
}

func withoutStatus(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "status" {
			out[k] = v
		}
	}
	return out
}

// setStatus replaces obj's status with status (as produced by toMap).
func setStatus(obj client.Object, status any) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	if status == nil {
		delete(m, "status")
	} else {
		m["status"] = status
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
		return fmt.Errorf("restoring status of %s: %w", describe(obj), err)
	}
	return nil
}

func describe(obj client.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%s %s/%s", kind, obj.GetNamespace(), obj.GetName())
}
