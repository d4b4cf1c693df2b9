package envtest

import (
	"context"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// UpdateStatus applies mutate to a fresh read of obj and writes its status,
// retrying on a conflict. A test playing a provider or the kubelet writes status
// that controllers under test write too, so the object it created a moment ago
// may already have a newer resourceVersion; a plain Update would then fail the
// test on timing alone.
func UpdateStatus(t TB, c client.Client, obj client.Object, mutate func()) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		mutate()
		return c.Status().Update(ctx, obj)
	})
	if err != nil {
		t.Fatalf("updating the status of %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
}

// Update applies mutate to a fresh read of obj and writes it, retrying on a
// conflict: the spec-side twin of UpdateStatus, for a test changing an object a
// controller under test writes too (finalizers, labels, status-driven patches).
func Update(t TB, c client.Client, obj client.Object, mutate func()) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		mutate()
		return c.Update(ctx, obj)
	})
	if err != nil {
		t.Fatalf("updating %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
}
