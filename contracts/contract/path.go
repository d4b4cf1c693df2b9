package contract

import (
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Path is the location of a field in a provider object, one element per JSON key.
type Path []string

// String returns the dotted form used in messages: "status.initialization.provisioned".
func (p Path) String() string { return strings.Join(p, ".") }

// field is what every accessor shares: the path it reads, or, when the contract
// version has no such field, the error every call returns instead.
type field struct {
	path Path
	err  error
}

// Path returns the field's path; nil when the contract version does not define it.
func (f field) Path() Path { return slices.Clone(f.path) }

// String returns the dotted path, or "" when the contract version does not define it.
func (f field) String() string { return f.path.String() }

// at builds a field for a path that is the same in every contract version.
func at(path ...string) field { return field{path: path} }

// versioned builds a field whose path depends on the contract version. A nil path
// means the version does not define the field; what names it in that error
// ("InfraCluster status.failureReason").
func versioned(v ContractVersion, what string, v1beta2, v1beta1 Path) field {
	var p Path
	switch v {
	case V1Beta2:
		p = v1beta2
	case V1Beta1:
		p = v1beta1
	default:
		return field{err: tagged(ErrUnsupportedContract, "reading %s: contract version %q is not supported (supported: %s, %s)",
			what, string(v), V1Beta2, V1Beta1)}
	}
	if p == nil {
		return field{err: tagged(ErrNotInContract, "%s is not part of contract %s", what, v)}
	}
	return field{path: p}
}

// lookup walks obj along f's path. It returns found=false, and no error, when a
// key is absent or null (JSON's way of saying "unset"); a parent that is not an
// object is a mistyped error naming that parent.
func (f field) lookup(obj *unstructured.Unstructured) (any, bool, error) {
	if f.err != nil {
		return nil, false, f.err
	}
	if obj == nil {
		return nil, false, tagged(ErrNilObject, "reading %s: %v", f.path, ErrNilObject)
	}
	var cur any = obj.Object
	for i, key := range f.path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, mistyped(obj, f.path.String(), f.path[:i].String(), "object", cur)
		}
		cur, ok = m[key]
		if !ok || cur == nil {
			return nil, false, nil
		}
	}
	return cur, true, nil
}

// get is lookup with a missing field turned into ErrFieldNotFound.
func (f field) get(obj *unstructured.Unstructured) (any, error) {
	v, found, err := f.lookup(obj)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, notFound(obj, f.path.String())
	}
	return v, nil
}

// set stores a JSON value (bool, string, int64, float64, map[string]any, []any)
// at f's path, creating absent or null parents. A parent that exists but is not
// an object is reported rather than overwritten: tests should not hide bad fakes.
func (f field) set(obj *unstructured.Unstructured, value any) error {
	if f.err != nil {
		return f.err
	}
	if obj == nil {
		return tagged(ErrNilObject, "setting %s: %v", f.path, ErrNilObject)
	}
	if obj.Object == nil {
		obj.Object = map[string]any{}
	}
	m := obj.Object
	for i, key := range f.path[:len(f.path)-1] {
		next, ok := m[key]
		if !ok || next == nil {
			child := map[string]any{}
			m[key] = child
			m = child
			continue
		}
		child, ok := next.(map[string]any)
		if !ok {
			return mistyped(obj, f.path.String(), f.path[:i+1].String(), "object", next)
		}
		m = child
	}
	m[f.path[len(f.path)-1]] = value
	return nil
}

// asInt64 accepts the integer representations an unstructured map can hold: int64
// from the API machinery's JSON decoder, other Go ints from hand-built fakes, and
// integral float64 from encoding/json.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}

// asObject reads a JSON object; errors name path (which may carry list indices).
func asObject(obj *unstructured.Unstructured, path string, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, mistyped(obj, path, path, "object", v)
	}
	return m, nil
}

// optionalString reads m[key] as a string; absent or null yields "".
func optionalString(obj *unstructured.Unstructured, parent, key string, m map[string]any) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		p := parent + "." + key
		return "", mistyped(obj, p, p, "string", v)
	}
	return s, nil
}

// requiredString reads m[key] as a string that must be present; its absence makes
// the enclosing value malformed (ErrFieldMistyped), not "not set yet".
func requiredString(obj *unstructured.Unstructured, parent, key string, m map[string]any) (string, error) {
	if v, ok := m[key]; !ok || v == nil {
		return "", missingPart(obj, parent+"."+key, "string")
	}
	return optionalString(obj, parent, key, m)
}
