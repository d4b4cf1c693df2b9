package editplan

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// dryRunUpdate decodes the document into edited and returns the object as it is stored now
// (current) and as the update would store it (edited, filled by the API server's dry run). The
// edit replaces the spec, as `kubectl replace` does; labels and annotations are added to the
// stored ones, and what the controllers own in metadata (owners, finalizers) is kept, so that
// the plan is about the edit and not about what the file leaves out. current is nil when the
// object does not exist: nothing is dry-run then.
func dryRunUpdate[T client.Object](ctx context.Context, c client.Client, d Document, current, edited T) (bool, error) {
	if u, ok := any(edited).(runtime.Unstructured); ok { // a kind of another module: no Go type here
		u.SetUnstructuredContent(runtime.DeepCopyJSON(d.Object.Object))
	} else if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(d.Object.Object, edited, true); err != nil {
		return false, fmt.Errorf("%s: %s %s: %w", d.Source, d.Object.GetKind(), objectName(d.Object), err)
	}
	err := c.Get(ctx, client.ObjectKeyFromObject(edited), current)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: reading %s %s: %w", d.Source, d.Object.GetKind(), objectName(d.Object), err)
	}
	edited.SetUID(current.GetUID())
	edited.SetResourceVersion(current.GetResourceVersion())
	edited.SetOwnerReferences(current.GetOwnerReferences())
	edited.SetFinalizers(current.GetFinalizers())
	edited.SetManagedFields(nil) // the stored ones are kept
	edited.SetLabels(merged(current.GetLabels(), edited.GetLabels()))
	edited.SetAnnotations(merged(current.GetAnnotations(), edited.GetAnnotations()))
	if err := c.Update(ctx, edited, client.DryRunAll); err != nil {
		return false, fmt.Errorf("%s: the management cluster refuses the edit of %s %s: %w", d.Source, d.Object.GetKind(), objectName(d.Object), err)
	}
	return true, nil
}

func merged(base, over map[string]string) map[string]string {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
