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

// Package tracking keeps the Runtime SDK's bookkeeping on a Cluster as upstream Cluster API
// does: the hooks still owed to it (the pending-hooks annotation, a sorted comma-separated set)
// and whether BeforeClusterDelete let its deletion go on (the ok-to-delete annotation). Both are
// written with a merge patch of the annotations alone, and only when they change, so the
// controllers that call hooks stay free of writes at rest and a restart finds what is owed.
package tracking

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// Pending returns the hooks marked pending on obj, sorted.
func Pending(obj client.Object) []string {
	v := obj.GetAnnotations()[runtimev1.PendingHooksAnnotation]
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// IsPending says whether hook is marked pending on obj.
func IsPending(obj client.Object, hook string) bool {
	return slices.Contains(Pending(obj), hook)
}

// MarkPending adds hooks to obj's pending set, writing obj only when the set changes; obj is
// updated in place with the result.
func MarkPending(ctx context.Context, c client.Client, obj client.Object, hooks ...string) error {
	set := Pending(obj)
	for _, h := range hooks {
		if !slices.Contains(set, h) {
			set = append(set, h)
		}
	}
	slices.Sort(set)
	return writePending(ctx, c, obj, set)
}

// MarkDone removes hooks from obj's pending set (the annotation goes when the set is empty),
// writing obj only when the set changes.
func MarkDone(ctx context.Context, c client.Client, obj client.Object, hooks ...string) error {
	set := slices.DeleteFunc(Pending(obj), func(h string) bool { return slices.Contains(hooks, h) })
	return writePending(ctx, c, obj, set)
}

func writePending(ctx context.Context, c client.Client, obj client.Object, set []string) error {
	if slices.Equal(set, Pending(obj)) && (len(set) > 0 || !hasAnnotation(obj, runtimev1.PendingHooksAnnotation)) {
		return nil
	}
	var value *string
	if len(set) > 0 {
		v := strings.Join(set, ",")
		value = &v
	}
	return patchAnnotation(ctx, c, obj, runtimev1.PendingHooksAnnotation, value)
}

// IsOkToDelete says whether BeforeClusterDelete let obj's deletion go on.
func IsOkToDelete(obj client.Object) bool {
	return hasAnnotation(obj, runtimev1.OkToDeleteAnnotation)
}

// MarkOkToDelete records that BeforeClusterDelete let obj's deletion go on (once).
func MarkOkToDelete(ctx context.Context, c client.Client, obj client.Object) error {
	if IsOkToDelete(obj) {
		return nil
	}
	empty := ""
	return patchAnnotation(ctx, c, obj, runtimev1.OkToDeleteAnnotation, &empty)
}

func hasAnnotation(obj client.Object, key string) bool {
	_, ok := obj.GetAnnotations()[key]
	return ok
}

// patchAnnotation sets (value non-nil) or removes (nil) one annotation with a merge patch that
// carries nothing else, so it never conflicts with other writers of the object.
func patchAnnotation(ctx context.Context, c client.Client, obj client.Object, key string, value *string) error {
	before := obj.DeepCopyObject().(client.Object)
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	if value == nil {
		delete(a, key)
	} else {
		a[key] = *value
	}
	obj.SetAnnotations(a)
	if err := c.Patch(ctx, obj, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("writing annotation %s on %s %s: %w", key, obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}
