package contract

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ControlPlaneContract holds the accessors for ControlPlane objects
// (KubeadmControlPlane, GenericControlPlane, ...).
type ControlPlaneContract struct{}

// ControlPlane returns the ControlPlane accessors.
func ControlPlane() ControlPlaneContract { return ControlPlaneContract{} }

// ControlPlaneEndpoint is spec.controlPlaneEndpoint, set when the control plane owns
// the endpoint (e.g. a managed service).
func (ControlPlaneContract) ControlPlaneEndpoint() EndpointField {
	return EndpointField{at("spec", "controlPlaneEndpoint")}
}

// Replicas is spec.replicas; absent for control planes without a replica count.
func (ControlPlaneContract) Replicas() Int64Field { return Int64Field{at("spec", "replicas")} }

// Selector is status.selector, the label selector string of the scale subresource.
func (ControlPlaneContract) Selector() StringField { return StringField{at("status", "selector")} }

// StatusReplicas is status.replicas: the machines that currently exist.
func (ControlPlaneContract) StatusReplicas() Int64Field {
	return Int64Field{at("status", "replicas")}
}

// ReadyReplicas is status.readyReplicas, defined by both contract versions.
func (ControlPlaneContract) ReadyReplicas() Int64Field {
	return Int64Field{at("status", "readyReplicas")}
}

// AvailableReplicas is status.availableReplicas, which only v1beta2 defines.
func (ControlPlaneContract) AvailableReplicas(v ContractVersion) Int64Field {
	return Int64Field{versioned(v, "ControlPlane status.availableReplicas", Path{"status", "availableReplicas"}, nil)}
}

// UpToDateReplicas is status.upToDateReplicas, which only v1beta2 defines. v1beta1's
// updatedReplicas counts something narrower (spec match only), so it is a separate
// accessor rather than a fallback: the core decides how to treat old providers.
func (ControlPlaneContract) UpToDateReplicas(v ContractVersion) Int64Field {
	return Int64Field{versioned(v, "ControlPlane status.upToDateReplicas", Path{"status", "upToDateReplicas"}, nil)}
}

// UpdatedReplicas is status.updatedReplicas, which only v1beta1 defines.
func (ControlPlaneContract) UpdatedReplicas(v ContractVersion) Int64Field {
	return Int64Field{versioned(v, "ControlPlane status.updatedReplicas", nil, Path{"status", "updatedReplicas"})}
}

// UnavailableReplicas is status.unavailableReplicas, which only v1beta1 defines.
func (ControlPlaneContract) UnavailableReplicas(v ContractVersion) Int64Field {
	return Int64Field{versioned(v, "ControlPlane status.unavailableReplicas", nil, Path{"status", "unavailableReplicas"})}
}

// Version is spec.version, the Kubernetes version the control plane should run.
func (ControlPlaneContract) Version() StringField { return StringField{at("spec", "version")} }

// StatusVersion is status.version, the oldest Kubernetes version the control plane
// currently runs.
func (ControlPlaneContract) StatusVersion() StringField {
	return StringField{at("status", "version")}
}

// Initialized is status.initialization.controlPlaneInitialized (v1beta2) or
// status.initialized (v1beta1): the API server answers and the kubeconfig exists.
func (ControlPlaneContract) Initialized(v ContractVersion) BoolField {
	return BoolField{versioned(v, "ControlPlane initialized",
		Path{"status", "initialization", "controlPlaneInitialized"}, Path{"status", "initialized"})}
}

// ExternalManagedControlPlane is status.externalManagedControlPlane: true for
// managed control planes that have no Machines or Nodes.
func (ControlPlaneContract) ExternalManagedControlPlane() BoolField {
	return BoolField{at("status", "externalManagedControlPlane")}
}

// MachineTemplateInfrastructureRef is the InfraMachineTemplate the control plane
// clones for its machines: spec.machineTemplate.spec.infrastructureRef (v1beta2,
// {apiGroup, kind, name}) or spec.machineTemplate.infrastructureRef (v1beta1, an
// ObjectReference with apiVersion).
func (ControlPlaneContract) MachineTemplateInfrastructureRef(v ContractVersion) ReferenceField {
	f := versioned(v, "ControlPlane machine template infrastructureRef",
		Path{"spec", "machineTemplate", "spec", "infrastructureRef"}, Path{"spec", "machineTemplate", "infrastructureRef"})
	return ReferenceField{field: f, withAPIVersion: v == V1Beta1}
}

// ObjectReference points at a provider object in the referrer's namespace. Both
// contract shapes read into it.
type ObjectReference struct {
	// APIGroup is the group; under v1beta1 it is taken from APIVersion.
	APIGroup string
	Kind     string
	Name     string
	// APIVersion is "group/version" and is set only under v1beta1, whose references
	// pin a version; v1beta2 references leave the version to discovery.
	APIVersion string
}

// GroupKind is the referenced kind, the input to GetContractVersion.
func (r ObjectReference) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.APIGroup, Kind: r.Kind}
}

// ReferenceField reads an object reference in either contract shape.
type ReferenceField struct {
	field
	withAPIVersion bool // v1beta1: {apiVersion, kind, name, ...}
}

// Get returns the reference. ErrFieldNotFound when it is absent; ErrFieldMistyped,
// naming the sub-field, when kind, name or the group (apiGroup, or apiVersion under
// v1beta1) is missing, not a string, or, for apiVersion, not parseable.
func (f ReferenceField) Get(obj *unstructured.Unstructured) (*ObjectReference, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	p := f.String()
	m, err := asObject(obj, p, v)
	if err != nil {
		return nil, err
	}
	ref := &ObjectReference{}
	if ref.Kind, err = requiredString(obj, p, "kind", m); err != nil {
		return nil, err
	}
	if ref.Name, err = requiredString(obj, p, "name", m); err != nil {
		return nil, err
	}
	if !f.withAPIVersion {
		if ref.APIGroup, err = requiredString(obj, p, "apiGroup", m); err != nil {
			return nil, err
		}
		return ref, nil
	}
	if ref.APIVersion, err = requiredString(obj, p, "apiVersion", m); err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, &FieldError{Object: describe(obj), Path: p + ".apiVersion", Expected: "group/version string",
			Actual: "\"" + ref.APIVersion + "\"", kind: ErrFieldMistyped}
	}
	ref.APIGroup = gv.Group
	return ref, nil
}

// Set writes the reference in the field's contract shape (under v1beta1 APIVersion
// must be set); for tests flipping fakes (see the package doc).
func (f ReferenceField) Set(obj *unstructured.Unstructured, ref ObjectReference) error {
	m := map[string]any{"kind": ref.Kind, "name": ref.Name}
	if f.withAPIVersion {
		m["apiVersion"] = ref.APIVersion
	} else {
		m["apiGroup"] = ref.APIGroup
	}
	return f.set(obj, m)
}
