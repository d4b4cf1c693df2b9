package topologyplan

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// overlay reads objects from the files first and from the management cluster otherwise, so that
// a class and templates not yet applied are planned as they are written. Objects match by group,
// kind, namespace and name (a file may hold another served version of a kind).
type overlay struct {
	client.Reader
	scheme  *runtime.Scheme
	objects map[overlayKey]*unstructured.Unstructured
}

type overlayKey struct {
	gk  schema.GroupKind
	key client.ObjectKey
}

func newOverlay(r client.Reader, scheme *runtime.Scheme, objs []*unstructured.Unstructured) *overlay {
	o := &overlay{Reader: r, scheme: scheme, objects: map[overlayKey]*unstructured.Unstructured{}}
	for _, u := range objs {
		o.objects[overlayKey{u.GroupVersionKind().GroupKind(), client.ObjectKeyFromObject(u)}] = u
	}
	return o
}

// Get reads obj from the files, else from the management cluster.
func (o *overlay) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	gvk, err := apiutil.GVKForObject(obj, o.scheme)
	if err != nil {
		return err
	}
	u, ok := o.objects[overlayKey{gvk.GroupKind(), key}]
	if !ok {
		return o.Reader.Get(ctx, key, obj, opts...)
	}
	if into, ok := obj.(*unstructured.Unstructured); ok {
		into.Object = u.DeepCopy().Object
		return nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.DeepCopy().Object, obj, true); err != nil {
		return fmt.Errorf("%s %s from the files: %w", gvk.Kind, key, err)
	}
	return nil
}
