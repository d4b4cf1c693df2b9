package contract

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// BoolField reads a boolean contract field.
type BoolField struct{ field }

// Get returns the value, ErrFieldNotFound when it is absent, ErrFieldMistyped when it
// is not a JSON boolean.
func (f BoolField) Get(obj *unstructured.Unstructured) (*bool, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	b, ok := v.(bool)
	if !ok {
		return nil, mistyped(obj, f.String(), f.String(), "bool", v)
	}
	return &b, nil
}

// Set writes the value; for tests flipping fakes (see the package doc).
func (f BoolField) Set(obj *unstructured.Unstructured, value bool) error { return f.set(obj, value) }

// StringField reads a string contract field.
type StringField struct{ field }

// Get returns the value, ErrFieldNotFound when it is absent, ErrFieldMistyped when it
// is not a JSON string.
func (f StringField) Get(obj *unstructured.Unstructured) (*string, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		return nil, mistyped(obj, f.String(), f.String(), "string", v)
	}
	return &s, nil
}

// Set writes the value; for tests flipping fakes (see the package doc).
func (f StringField) Set(obj *unstructured.Unstructured, value string) error {
	return f.set(obj, value)
}

// Int64Field reads an integer contract field. Contract replicas are int32 in Go
// types; int64 is what JSON decoding yields, so no value is ever truncated here.
type Int64Field struct{ field }

// Get returns the value, ErrFieldNotFound when it is absent, ErrFieldMistyped when it
// is not a JSON integer (a fractional number is mistyped too).
func (f Int64Field) Get(obj *unstructured.Unstructured) (*int64, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	n, ok := asInt64(v)
	if !ok {
		return nil, mistyped(obj, f.String(), f.String(), "integer", v)
	}
	return &n, nil
}

// Set writes the value; for tests flipping fakes (see the package doc).
func (f Int64Field) Set(obj *unstructured.Unstructured, value int64) error {
	return f.set(obj, value)
}
