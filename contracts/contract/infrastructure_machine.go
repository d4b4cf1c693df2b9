package contract

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// InfrastructureMachineContract holds the accessors for InfraMachine objects
// (DockerMachine, GenericInfrastructureMachine, ...).
type InfrastructureMachineContract struct{}

// InfrastructureMachine returns the InfraMachine accessors.
func InfrastructureMachine() InfrastructureMachineContract { return InfrastructureMachineContract{} }

// ProviderID is spec.providerID, which the core matches against Node.spec.providerID.
func (InfrastructureMachineContract) ProviderID() StringField {
	return StringField{at("spec", "providerID")}
}

// Provisioned is status.initialization.provisioned (v1beta2) or status.ready (v1beta1).
func (InfrastructureMachineContract) Provisioned(v ContractVersion) BoolField {
	return BoolField{versioned(v, "InfraMachine provisioned",
		Path{"status", "initialization", "provisioned"}, Path{"status", "ready"})}
}

// Addresses is status.addresses, copied to Machine.status.addresses.
func (InfrastructureMachineContract) Addresses() AddressesField {
	return AddressesField{at("status", "addresses")}
}

// Interruptible is status.interruptible: true when the machine runs on an interruptible
// (spot) instance; the core labels its Node cluster.x-k8s.io/interruptible.
func (InfrastructureMachineContract) Interruptible() BoolField {
	return BoolField{at("status", "interruptible")}
}

// FailureDomain is status.failureDomain: where the machine actually landed.
func (InfrastructureMachineContract) FailureDomain() StringField {
	return StringField{at("status", "failureDomain")}
}

// SpecFailureDomain is spec.failureDomain.
//
// Deprecated: a v1alpha3 migration aid kept by the contract; providers should report
// status.failureDomain, read with FailureDomain.
func (InfrastructureMachineContract) SpecFailureDomain() StringField {
	return StringField{at("spec", "failureDomain")}
}

// FailureReason is status.failureReason, which only v1beta1 defines.
func (InfrastructureMachineContract) FailureReason(v ContractVersion) StringField {
	return StringField{versioned(v, "InfraMachine status.failureReason", nil, Path{"status", "failureReason"})}
}

// FailureMessage is status.failureMessage, which only v1beta1 defines.
func (InfrastructureMachineContract) FailureMessage(v ContractVersion) StringField {
	return StringField{versioned(v, "InfraMachine status.failureMessage", nil, Path{"status", "failureMessage"})}
}

// MachineAddress is one entry of status.addresses. Type is one of Hostname,
// ExternalIP, InternalIP, ExternalDNS, InternalDNS; it is passed through unchecked
// because the Machine's own validation owns that rule.
type MachineAddress struct {
	Type    string
	Address string
}

// AddressesField reads a list of {type, address}.
type AddressesField struct{ field }

// Get returns the addresses in the provider's order (the order is meaningful: the
// first InternalIP is the one users see first). ErrFieldNotFound when the list is
// absent; ErrFieldMistyped, naming the element, when an entry is not an object or its
// type or address is missing or not a string.
func (f AddressesField) Get(obj *unstructured.Unstructured) ([]MachineAddress, error) {
	v, err := f.get(obj)
	if err != nil {
		return nil, err
	}
	items, ok := v.([]any)
	if !ok {
		return nil, mistyped(obj, f.String(), f.String(), "array", v)
	}
	out := make([]MachineAddress, 0, len(items))
	for i, item := range items {
		p := fmt.Sprintf("%s[%d]", f.String(), i)
		m, err := asObject(obj, p, item)
		if err != nil {
			return nil, err
		}
		var a MachineAddress
		if a.Type, err = requiredString(obj, p, "type", m); err != nil {
			return nil, err
		}
		if a.Address, err = requiredString(obj, p, "address", m); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Set writes the addresses; for tests flipping fakes (see the package doc).
func (f AddressesField) Set(obj *unstructured.Unstructured, addrs []MachineAddress) error {
	out := make([]any, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, map[string]any{"type": a.Type, "address": a.Address})
	}
	return f.set(obj, out)
}
