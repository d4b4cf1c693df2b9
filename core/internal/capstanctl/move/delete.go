package move

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DeletionOrder is the order the source objects are deleted in: the reverse of the copy
// order, so dependents go before their owners, with the Clusters moved to the very end,
// so a Cluster disappears only once nothing of it is left.
func DeletionOrder(copyOrder []*unstructured.Unstructured) []*unstructured.Unstructured {
	var others, clusters []*unstructured.Unstructured
	for i := len(copyOrder) - 1; i >= 0; i-- {
		if o := copyOrder[i]; isCluster(o) {
			clusters = append(clusters, o)
		} else {
			others = append(others, o)
		}
	}
	return append(others, clusters...)
}

// DeleteFromSource deletes plan's objects but the global ones from the source in DeletionOrder. Each one first
// loses its finalizers, so that no provider there (all are paused anyway) tears down the
// infrastructure the copies now own; the delete is then immediate. An object already gone
// (an earlier run, the garbage collector) is skipped, and the delete is conditional on
// the UID read at discovery, so an object re-created under the same name is never deleted.
func DeleteFromSource(ctx context.Context, source client.Client, plan *Plan) (int, error) {
	deleted := 0
	for _, o := range DeletionOrder(plan.Objects) {
		if plan.Global[o.GetUID()] {
			continue // shared by the Clusters of other namespaces: clusterctl keeps them too
		}
		uid := o.GetUID()
		// The UID makes the patch fail, instead of stripping finalizers, on an object
		// re-created under the same name: metadata.uid is immutable.
		patch := map[string]any{"metadata": map[string]any{"uid": string(uid), "finalizers": nil}}
		if err := client.IgnoreNotFound(mergePatch(ctx, source, o.DeepCopy(), patch)); err != nil {
			return deleted, fmt.Errorf("removing the finalizers of %s in the source: %w", describe(o), err)
		}
		if err := client.IgnoreNotFound(source.Delete(ctx, o.DeepCopy(), client.Preconditions{UID: &uid})); err != nil {
			return deleted, fmt.Errorf("deleting %s from the source: %w", describe(o), err)
		}
		deleted++
	}
	return deleted, nil
}
