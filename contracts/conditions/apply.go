package conditions

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Stamp fills in what Set would on obj: the observed generation, and a transition
// time that moves (to now, in whole seconds) only when the status flips. A
// controller that writes conditions of an object it does not own (by server-side
// apply) stamps them first, so an unchanged condition compares Same and is not
// written again.
func Stamp(obj Getter, c metav1.Condition, now time.Time) metav1.Condition {
	c.ObservedGeneration = obj.GetGeneration()
	if cur := Get(obj, c.Type); cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	} else {
		c.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
	}
	return c
}

// Same reports whether two conditions say the same thing, transition time included.
func Same(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.ObservedGeneration == b.ObservedGeneration && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// ApplyOptions say how Apply writes.
type ApplyOptions struct {
	// FieldManager owns the applied conditions; each writer of a shared object's
	// conditions uses its own, so applying leaves every other entry untouched
	// (status.conditions is a map list keyed by type).
	FieldManager string
	// Guard carries obj's resourceVersion, so the apply fails with a Conflict when
	// the object changed since it was read.
	Guard bool
}

// Apply server-side applies conds as obj's status conditions under
// opts.FieldManager, taking ownership of exactly those entries. Only obj's name,
// namespace and (with Guard) resourceVersion are read; apiVersion and kind name its type.
func Apply(ctx context.Context, c client.Client, obj client.Object, apiVersion, kind string, conds []metav1.Condition, opts ApplyOptions) error {
	list := make([]any, 0, len(conds))
	for i := range conds {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
		if err != nil {
			return fmt.Errorf("converting condition %s: %w", conds[i].Type, err)
		}
		u["message"] = conds[i].Message // required by the schema even when empty
		list = append(list, u)
	}
	meta := map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace()}
	if opts.Guard {
		meta["resourceVersion"] = obj.GetResourceVersion()
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   meta,
		"status":     map[string]any{"conditions": list},
	}}
	return c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(opts.FieldManager), client.ForceOwnership)
}
