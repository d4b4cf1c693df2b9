package conversion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotation holds a sparse JSON document: what the recorded object has that the baseline
// (what the other version's object converts to with nothing recorded) does not. It is read back
// by laying it over the baseline computed again from the object as it is then. While the object
// did not change, that gives the recorded object exactly; when a client of the other version
// changed it, the recorded parts still win and the rest follows the change.
//
//   - An object lists only the keys whose value differs; null means the key is absent. When one
//     of its scalar values differs, all its scalar values are recorded (a unit): a reference, a
//     file or a list element keeps its name or path next to what changed, so it is never laid
//     over another one.
//   - A list is recorded whole, except a list of objects whose length is the baseline's: it is
//     {"$elements": [...]}, with {} for an element that is the baseline's and the element's own
//     sparse object for one that is not (a large file or variable schema beside a small change
//     is not copied).
//
// Anything else (a scalar, a list of another length, an object where the baseline has none) is
// recorded whole.

// sparseElementsKey marks a list recorded element by element. API field names and the keys of
// the maps these APIs hold (labels, annotations, arguments) never start with "$".
const sparseElementsKey = "$elements"

// sparseDiff returns the sparse document that sparseMerge lays over base to give want, and
// whether there is any difference at all.
func sparseDiff(base, want any) (any, bool) {
	if reflect.DeepEqual(base, want) {
		return nil, false
	}
	switch w := want.(type) {
	case map[string]any:
		if b, ok := base.(map[string]any); ok {
			return sparseObject(b, w), true
		}
	case []any:
		if b, ok := base.([]any); ok && len(b) == len(w) && allObjects(b) && allObjects(w) {
			out := make([]any, len(w))
			for i := range w {
				d, changed := sparseDiff(b[i], w[i])
				if !changed {
					d = map[string]any{}
				}
				out[i] = d
			}
			return map[string]any{sparseElementsKey: out}, true
		}
	}
	return want, true
}

// sparseObject is sparseDiff of two objects (see above for the unit of scalar values).
func sparseObject(base, want map[string]any) map[string]any {
	out := map[string]any{}
	scalarChanged := false
	for k, w := range want {
		b, had := base[k]
		if isScalar(w) {
			scalarChanged = scalarChanged || !had || !reflect.DeepEqual(b, w)
			continue
		}
		if d, changed := sparseDiff(b, w); changed {
			out[k] = d
		}
	}
	for k, b := range base {
		if _, ok := want[k]; !ok {
			out[k] = nil
			scalarChanged = scalarChanged || isScalar(b)
		}
	}
	if scalarChanged {
		for k, w := range want {
			if isScalar(w) {
				out[k] = w
			}
		}
	}
	return out
}

// sparseMerge lays the sparse document over base (see above).
func sparseMerge(base, sparse any) any {
	s, ok := sparse.(map[string]any)
	if !ok {
		return sparse
	}
	if elements, ok := s[sparseElementsKey].([]any); ok && len(s) == 1 {
		b, _ := base.([]any)
		out := make([]any, len(elements))
		for i, e := range elements {
			var bi any
			if i < len(b) {
				bi = b[i]
			}
			out[i] = sparseMerge(bi, e)
		}
		return out
	}
	b, _ := base.(map[string]any)
	out := make(map[string]any, len(b)+len(s))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range s {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = sparseMerge(b[k], v)
	}
	return out
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func allObjects(list []any) bool {
	for _, v := range list {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// toJSONValue turns v into its JSON form (maps, lists, json.Numbers: an int64 such as a
// condition's observedGeneration does not survive a float64).
func toJSONValue(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(raw)
}

func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// recordSparse records in dst's DataAnnotation what want has that baseline does not; nothing
// (and no annotation) when they are the same.
func recordSparse(baseline, want any, dst metav1.Object) error {
	b, err := toJSONValue(baseline)
	if err != nil {
		return fmt.Errorf("recording conversion data: %w", err)
	}
	w, err := toJSONValue(want)
	if err != nil {
		return fmt.Errorf("recording conversion data: %w", err)
	}
	d, changed := sparseDiff(b, w)
	if !changed {
		return nil
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("recording conversion data: %w", err)
	}
	setAnnotation(dst, string(raw))
	return nil
}

// restoreSparse lays the recorded document raw over baseline and decodes the result into into.
func restoreSparse(raw string, baseline, into any) error {
	b, err := toJSONValue(baseline)
	if err != nil {
		return err
	}
	s, err := decodeJSON([]byte(raw))
	if err != nil {
		return err
	}
	merged, err := json.Marshal(sparseMerge(b, s))
	if err != nil {
		return err
	}
	return json.Unmarshal(merged, into)
}
