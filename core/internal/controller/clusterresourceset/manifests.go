package clusterresourceset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifests is what one Secret or ConfigMap of a ClusterResourceSet holds: the objects to
// apply, in order, and the hash the binding records.
type manifests struct {
	objects []*unstructured.Unstructured
	hash    string
}

// parseManifests reads the data of a Secret or ConfigMap: keys in sorted order, each value one
// or more YAML documents or a JSON list of objects. Within a value, Namespaces come first and
// CustomResourceDefinitions next (so what the other objects need exists first), the rest in
// document order. The hash is upstream's: "sha256:" and the hex SHA-256 of the values
// concatenated in key order, so a binding written by upstream Cluster API stays valid here.
// An invalid value is an error naming its key and document.
func parseManifests(data map[string][]byte) (*manifests, error) {
	if len(data) == 0 {
		return nil, errors.New("it has no data: put the manifests under data, one or more YAML documents or a JSON list per key")
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	out := &manifests{}
	for _, k := range keys {
		h.Write(data[k])
		objs, err := decodeValue(data[k])
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		out.objects = append(out.objects, sortForCreate(objs)...)
	}
	out.hash = fmt.Sprintf("sha256:%x", h.Sum(nil))
	return out, nil
}

// decodeValue decodes one data value: a JSON list, or YAML documents (JSON objects are YAML).
func decodeValue(value []byte) ([]*unstructured.Unstructured, error) {
	if trimmed := bytes.TrimSpace(value); bytes.HasPrefix(trimmed, []byte("[")) {
		var items []map[string]any
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, fmt.Errorf("not a JSON list of objects: %w", err)
		}
		out := make([]*unstructured.Unstructured, 0, len(items))
		for i, item := range items {
			u := &unstructured.Unstructured{Object: item}
			if err := checkObject(u); err != nil {
				return nil, fmt.Errorf("list item %d: %w", i+1, err)
			}
			out = append(out, u)
		}
		return out, nil
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(value)))
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		obj := map[string]any{}
		if err := yaml.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("document %d: not YAML: %w", doc, err)
		}
		if len(obj) == 0 {
			continue // an empty document (comments only, or a trailing ---)
		}
		u := &unstructured.Unstructured{Object: obj}
		if err := checkObject(u); err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		out = append(out, u)
	}
}

// checkObject requires what applying needs of an object: a kind and a name or generateName.
func checkObject(u *unstructured.Unstructured) error {
	switch {
	case u.GetAPIVersion() == "":
		return errors.New("an object has no apiVersion")
	case u.GetKind() == "":
		return fmt.Errorf("object %q has no kind", u.GetName())
	case u.GetName() == "" && u.GetGenerateName() == "":
		return fmt.Errorf("%s %s has neither metadata.name nor metadata.generateName", u.GetAPIVersion(), u.GetKind())
	}
	return nil
}

// createOrder ranks the kinds other objects depend on.
var createOrder = map[string]int{"Namespace": 0, "CustomResourceDefinition": 1}

// sortForCreate puts Namespaces, then CustomResourceDefinitions, first; the rest keeps its order.
func sortForCreate(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	rank := func(u *unstructured.Unstructured) int {
		if r, ok := createOrder[u.GetKind()]; ok {
			return r
		}
		return len(createOrder)
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int { return rank(a) - rank(b) })
	return objs
}
