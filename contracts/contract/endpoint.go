package contract

import (
	"math"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// APIEndpoint is spec.controlPlaneEndpoint of an InfraCluster or ControlPlane.
type APIEndpoint struct {
	Host string
	Port int32
}

// IsValid reports whether both host and port are set. Providers that do not own the
// endpoint leave zero values, which the core must not copy to the Cluster.
func (e APIEndpoint) IsValid() bool { return e.Host != "" && e.Port != 0 }

// EndpointField reads a {host, port} object.
type EndpointField struct{ field }

// Get returns the endpoint. The object must be present (ErrFieldNotFound otherwise);
// an absent host or port reads as its zero value, because v1beta2 providers may fill
// them in one at a time; a host that is not a string or a port that is not an int32
// integer is ErrFieldMistyped naming the sub-field.
func (f EndpointField) Get(obj *unstructured.Unstructured) (*APIEndpoint, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	m, err := asObject(obj, f.String(), v)
	if err != nil {
		return nil, err
	}
	host, err := optionalString(obj, f.String(), "host", m)
	if err != nil {
		return nil, err
	}
	ep := &APIEndpoint{Host: host}
	if raw, ok := m["port"]; ok && raw != nil {
		n, ok := asInt64(raw)
		p := f.String() + ".port"
		if !ok {
			return nil, mistyped(obj, p, p, "integer", raw)
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, &FieldError{Object: describe(obj), Path: p, Expected: "int32 integer",
				Actual: strconv.FormatInt(n, 10), kind: ErrFieldMistyped}
		}
		ep.Port = int32(n)
	}
	return ep, nil
}

// Set writes host and port; for tests flipping fakes (see the package doc).
func (f EndpointField) Set(obj *unstructured.Unstructured, value APIEndpoint) error {
	return f.set(obj, map[string]any{"host": value.Host, "port": int64(value.Port)})
}
