package contract

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// InfrastructureClusterContract holds the accessors for InfraCluster objects
// (DockerCluster, GenericInfrastructureCluster, ...).
type InfrastructureClusterContract struct{}

// InfrastructureCluster returns the InfraCluster accessors.
func InfrastructureCluster() InfrastructureClusterContract { return InfrastructureClusterContract{} }

// ControlPlaneEndpoint is spec.controlPlaneEndpoint, set when the infrastructure owns
// the endpoint (e.g. a load balancer it creates).
func (InfrastructureClusterContract) ControlPlaneEndpoint() EndpointField {
	return EndpointField{at("spec", "controlPlaneEndpoint")}
}

// Provisioned is status.initialization.provisioned (v1beta2) or status.ready (v1beta1).
func (InfrastructureClusterContract) Provisioned(v ContractVersion) BoolField {
	return BoolField{versioned(v, "InfraCluster provisioned",
		Path{"status", "initialization", "provisioned"}, Path{"status", "ready"})}
}

// FailureDomains is status.failureDomains: a list under v1beta2, a map keyed by name
// under v1beta1; both read as the same sorted list.
func (InfrastructureClusterContract) FailureDomains(v ContractVersion) FailureDomainsField {
	f := versioned(v, "InfraCluster status.failureDomains", Path{"status", "failureDomains"}, Path{"status", "failureDomains"})
	return FailureDomainsField{field: f, legacyMap: v == V1Beta1}
}

// FailureReason is status.failureReason, which only v1beta1 defines.
func (InfrastructureClusterContract) FailureReason(v ContractVersion) StringField {
	return StringField{versioned(v, "InfraCluster status.failureReason", nil, Path{"status", "failureReason"})}
}

// FailureMessage is status.failureMessage, which only v1beta1 defines.
func (InfrastructureClusterContract) FailureMessage(v ContractVersion) StringField {
	return StringField{versioned(v, "InfraCluster status.failureMessage", nil, Path{"status", "failureMessage"})}
}

// FailureDomain is one place machines can be put, as the core copies it to
// Cluster.status.failureDomains.
type FailureDomain struct {
	Name string
	// ControlPlane says whether control-plane machines may go there. v1beta2 leaves
	// it optional (nil when unset); v1beta1's bool always reads as non-nil.
	ControlPlane *bool
	Attributes   map[string]string
}

// FailureDomainsField reads status.failureDomains in either contract shape.
type FailureDomainsField struct {
	field
	legacyMap bool // v1beta1: map[name]{controlPlane, attributes}
}

// Get returns the failure domains sorted by name, so that copying them into the
// Cluster's status does not cause an endless patch loop over map or list order.
// ErrFieldNotFound when absent; ErrFieldMistyped, naming the element, when any
// part has the wrong type or a v1beta2 element has no name.
func (f FailureDomainsField) Get(obj *unstructured.Unstructured) ([]FailureDomain, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	var out []FailureDomain
	if f.legacyMap {
		out, err = f.fromMap(obj, v)
	} else {
		out, err = f.fromList(obj, v)
	}
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b FailureDomain) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (f FailureDomainsField) fromList(obj *unstructured.Unstructured, v any) ([]FailureDomain, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, mistyped(obj, f.String(), f.String(), "array", v)
	}
	out := make([]FailureDomain, 0, len(items))
	for i, item := range items {
		p := fmt.Sprintf("%s[%d]", f.String(), i)
		m, err := asObject(obj, p, item)
		if err != nil {
			return nil, err
		}
		name, err := requiredString(obj, p, "name", m)
		if err != nil {
			return nil, err
		}
		fd := FailureDomain{Name: name}
		if raw, ok := m["controlPlane"]; ok && raw != nil {
			b, ok := raw.(bool)
			if !ok {
				return nil, mistyped(obj, p+".controlPlane", p+".controlPlane", "bool", raw)
			}
			fd.ControlPlane = &b
		}
		if fd.Attributes, err = attributes(obj, p, m); err != nil {
			return nil, err
		}
		out = append(out, fd)
	}
	return out, nil
}

func (f FailureDomainsField) fromMap(obj *unstructured.Unstructured, v any) ([]FailureDomain, error) {
	domains, err := asObject(obj, f.String(), v)
	if err != nil {
		return nil, err
	}
	out := make([]FailureDomain, 0, len(domains))
	for _, name := range slices.Sorted(maps.Keys(domains)) {
		p := f.String() + "." + name
		m := map[string]any{} // a null entry is a domain with no settings
		if raw := domains[name]; raw != nil {
			if m, err = asObject(obj, p, raw); err != nil {
				return nil, err
			}
		}
		controlPlane := false // v1beta1's field is a bool with omitempty: absent means false
		if raw, ok := m["controlPlane"]; ok && raw != nil {
			b, ok := raw.(bool)
			if !ok {
				return nil, mistyped(obj, p+".controlPlane", p+".controlPlane", "bool", raw)
			}
			controlPlane = b
		}
		attrs, err := attributes(obj, p, m)
		if err != nil {
			return nil, err
		}
		out = append(out, FailureDomain{Name: name, ControlPlane: &controlPlane, Attributes: attrs})
	}
	return out, nil
}

// attributes reads the optional string map m["attributes"]; nil when absent.
func attributes(obj *unstructured.Unstructured, parent string, m map[string]any) (map[string]string, error) {
	raw, ok := m["attributes"]
	if !ok || raw == nil {
		return nil, nil
	}
	p := parent + ".attributes"
	am, err := asObject(obj, p, raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(am))
	for k := range am {
		s, err := optionalString(obj, p, k, am)
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// Set writes the domains in the shape of the field's contract version; for tests
// flipping fakes (see the package doc).
func (f FailureDomainsField) Set(obj *unstructured.Unstructured, domains []FailureDomain) error {
	encodeAttrs := func(fd FailureDomain) map[string]any {
		if fd.Attributes == nil {
			return nil
		}
		m := make(map[string]any, len(fd.Attributes))
		for k, v := range fd.Attributes {
			m[k] = v
		}
		return m
	}
	if f.legacyMap {
		out := make(map[string]any, len(domains))
		for _, fd := range domains {
			m := map[string]any{"controlPlane": fd.ControlPlane != nil && *fd.ControlPlane}
			if a := encodeAttrs(fd); a != nil {
				m["attributes"] = a
			}
			out[fd.Name] = m
		}
		return f.set(obj, out)
	}
	out := make([]any, 0, len(domains))
	for _, fd := range domains {
		m := map[string]any{"name": fd.Name}
		if fd.ControlPlane != nil {
			m["controlPlane"] = *fd.ControlPlane
		}
		if a := encodeAttrs(fd); a != nil {
			m["attributes"] = a
		}
		out = append(out, m)
	}
	return f.set(obj, out)
}
