package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Object is one object of a manifest.
type Object = unstructured.Unstructured

// FieldOwner is the server-side apply field manager of everything this package applies.
const FieldOwner = "capstan-quickstart"

// ParseManifest splits a multi-document YAML manifest into objects, skipping empty
// documents (a file of comments only, a trailing ---).
func ParseManifest(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for i := 0; ; i++ {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("document %d has no apiVersion/kind", i)
		}
		objs = append(objs, u)
	}
}

// Apply server-side applies every object, so running it again changes nothing and a field
// someone else owns (e.g. a controller's status) is left alone.
func Apply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) error {
	for _, u := range objs {
		u = u.DeepCopy()
		u.SetManagedFields(nil)
		u.SetResourceVersion("")
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), client.ObjectKeyFromObject(u), err)
		}
	}
	return nil
}
