package contract

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	// ErrFieldNotFound reports that a contract field is absent (or JSON null) in a
	// provider object. Optional fields are read by treating it as "not set yet".
	ErrFieldNotFound = errors.New("field not found")
	// ErrFieldMistyped reports that a contract field, or one of its parents, holds a
	// JSON value of the wrong type: the provider breaks the contract.
	ErrFieldMistyped = errors.New("field has the wrong type")
	// ErrNilObject reports an accessor called with a nil object: a caller bug, kept
	// apart from ErrFieldNotFound so it is never mistaken for "not set yet".
	ErrNilObject = errors.New("nil object")
	// ErrNotInContract reports an accessor for a field the given contract version does
	// not define, e.g. failureReason under v1beta2.
	ErrNotInContract = errors.New("field is not part of the contract version")
	// ErrUnsupportedContract reports a contract version this package does not know.
	ErrUnsupportedContract = errors.New("unsupported contract version")

	// ErrCRDNotFound reports that the CRD named by CalculateCRDName does not exist.
	ErrCRDNotFound = errors.New("CRD not found")
	// ErrNoContractLabel reports a CRD without a label for any compatible contract.
	ErrNoContractLabel = errors.New("CRD declares no supported contract")
	// ErrMalformedContractLabel reports a contract label whose value is not an
	// underscore-separated list of CRD version names.
	ErrMalformedContractLabel = errors.New("malformed contract label")
)

// FieldError is the error every accessor returns for a missing or mistyped field.
// errors.Is matches it against ErrFieldNotFound or ErrFieldMistyped; errors.As gives
// callers the path, e.g. to name it in a condition message.
type FieldError struct {
	// Object names the provider object: "Kind namespace/name".
	Object string
	// Path is the field that was read, dotted: "status.initialization.provisioned".
	// For list elements it carries the index: "status.addresses[1].type".
	Path string
	// At is the parent of Path whose type was wrong (e.g. "status" when status is a
	// string); empty when the mismatch is at Path itself or the field is missing.
	At string
	// Expected and Actual are JSON type names ("bool", "object", ...), set only for
	// ErrFieldMistyped. An empty Actual means a required part of a present value is
	// missing, e.g. the kind of a reference: the value as a whole is malformed, so it
	// must not match ErrFieldNotFound, which callers treat as "not set yet".
	Expected, Actual string

	kind error // ErrFieldNotFound or ErrFieldMistyped
}

func (e *FieldError) Error() string {
	if e.kind == ErrFieldNotFound {
		return fmt.Sprintf("field %s of %s not found", e.Path, e.Object)
	}
	if e.Actual == "" {
		return fmt.Sprintf("field %s of %s: required %s is missing", e.Path, e.Object, e.Expected)
	}
	if e.At != "" {
		return fmt.Sprintf("field %s of %s: expected %s at %s, got %s", e.Path, e.Object, e.Expected, e.At, e.Actual)
	}
	return fmt.Sprintf("field %s of %s: expected %s, got %s", e.Path, e.Object, e.Expected, e.Actual)
}

// Unwrap makes errors.Is(err, ErrFieldNotFound / ErrFieldMistyped) work.
func (e *FieldError) Unwrap() error { return e.kind }

// missingPart reports a required sub-field absent from a present value.
func missingPart(obj *unstructured.Unstructured, path, expected string) error {
	return &FieldError{Object: describe(obj), Path: path, Expected: expected, kind: ErrFieldMistyped}
}

func notFound(obj *unstructured.Unstructured, path string) error {
	return &FieldError{Object: describe(obj), Path: path, kind: ErrFieldNotFound}
}

// mistyped builds the error for a value of the wrong type found at where, while
// reading path (where == path when the field itself is wrong).
func mistyped(obj *unstructured.Unstructured, path, where, expected string, actual any) error {
	e := &FieldError{Object: describe(obj), Path: path, Expected: expected, Actual: jsonType(actual), kind: ErrFieldMistyped}
	if where != path {
		e.At = where
	}
	return e
}

// taggedError carries a full sentence of its own while still matching a sentinel
// with errors.Is, so messages need not repeat the sentinel's text.
type taggedError struct {
	msg string
	tag error
}

func (e *taggedError) Error() string { return e.msg }
func (e *taggedError) Unwrap() error { return e.tag }

func tagged(tag error, format string, args ...any) error {
	return &taggedError{msg: fmt.Sprintf(format, args...), tag: tag}
}

// describe names an object the way users see it in kubectl: "Kind namespace/name".
// It tolerates nil and half-built objects because it runs while reporting errors.
func describe(obj *unstructured.Unstructured) string {
	if obj == nil {
		return "<nil object>"
	}
	kind := obj.GetKind()
	if kind == "" {
		kind = "object"
	}
	name := obj.GetName()
	if name == "" {
		name = "<unnamed>"
	}
	if ns := obj.GetNamespace(); ns != "" {
		return kind + " " + ns + "/" + name
	}
	return kind + " " + name
}

// jsonType names the JSON type of a value decoded into an unstructured map, so
// messages speak the provider author's language rather than Go's.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "integer"
	case float32, float64:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	default:
		return fmt.Sprintf("%T", v)
	}
}
