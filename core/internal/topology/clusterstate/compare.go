package clusterstate

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldManager owns every field the topology controller applies.
const FieldManager = "capstan-topology"

// DryRunApply returns what server-side applying obj as the topology's field manager (taking over
// conflicting fields) would store; nothing is stored.
func DryRunApply(ctx context.Context, c client.Client, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	dry := obj.DeepCopy()
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(dry),
		client.FieldOwner(FieldManager), client.ForceOwnership, client.DryRunAll); err != nil {
		return nil, fmt.Errorf("dry-run applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return dry, nil
}

// SpecDiffers reports whether a and b differ in spec.
func SpecDiffers(a, b *unstructured.Unstructured) bool {
	return !equality.Semantic.DeepEqual(a.Object["spec"], b.Object["spec"])
}

// MetadataDiffers compares what the topology writes of metadata: labels, annotations, owners.
func MetadataDiffers(a, b *unstructured.Unstructured) bool {
	return !equality.Semantic.DeepEqual(a.GetLabels(), b.GetLabels()) ||
		!equality.Semantic.DeepEqual(a.GetAnnotations(), b.GetAnnotations()) ||
		!equality.Semantic.DeepEqual(a.GetOwnerReferences(), b.GetOwnerReferences())
}

// Intent turns a typed object into an apply intent: no status, no creation timestamp.
func Intent(obj runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}
