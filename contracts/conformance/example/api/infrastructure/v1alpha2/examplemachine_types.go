/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
)

// AddressesClaimedCondition is True once every pool of spec.network.addressesFromPools gave the
// machine an address; False names the claims still waiting and why (the IPAM provider's message).
const AddressesClaimedCondition = "AddressesClaimed"

// MachineFinalizer keeps an ExampleMachine until its controller has released the
// machine.
const MachineFinalizer = "infrastructure.example.capstan.dev/examplemachine"

// ExampleMachineSpec is the desired state of an ExampleMachine.
type ExampleMachineSpec struct {
	// providerID is "example:///<name>", set by the controller once the machine
	// exists; the Node of the machine carries the same value, and the core matches
	// them.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// network is where the machine's addresses come from. v1alpha1 had its one field,
	// addressesFromPools, directly under spec; the conversion webhook moves it.
	// +optional
	Network ExampleMachineNetwork `json:"network,omitempty,omitzero"`
}

// ExampleMachineNetwork is the network configuration of an ExampleMachine.
type ExampleMachineNetwork struct {
	// addressesFromPools are the IPAM pools the machine takes one address from each (an
	// IPAddressClaim per pool, answered by the IPAM provider that owns the pool), as upstream's
	// vSphere and Metal3 providers do; the addresses are reported as InternalIP.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	AddressesFromPools []ipamv1.IPPoolReference `json:"addressesFromPools,omitempty"`
}

// ExampleMachineStatus is the observed state of an ExampleMachine.
type ExampleMachineStatus struct {
	// conditions: Ready, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization holds the contract's one-way provisioning milestone.
	// +optional
	Initialization ExampleMachineInitializationStatus `json:"initialization,omitempty,omitzero"`

	// addresses of the machine; the core copies them to the Machine.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Addresses []clusterv1.MachineAddress `json:"addresses,omitempty"`

	// failureDomain is where the machine runs (the Machine's spec.failureDomain).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`
}

// ExampleMachineInitializationStatus is the contract's initialization struct.
// +kubebuilder:validation:MinProperties=1
type ExampleMachineInitializationStatus struct {
	// provisioned is true once the machine exists and spec.providerID is set; the
	// core copies it to Machine.status.initialization.infrastructureProvisioned.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=examplemachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1_v1alpha2"

// ExampleMachine is the infrastructure of one Machine.
type ExampleMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ExampleMachineSpec `json:"spec,omitempty,omitzero"`
	// +optional
	Status ExampleMachineStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the conditions, for the shared condition helpers.
func (m *ExampleMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }

// SetConditions replaces the conditions, for the shared condition helpers.
func (m *ExampleMachine) SetConditions(conds []metav1.Condition) { m.Status.Conditions = conds }

// +kubebuilder:object:root=true

// ExampleMachineList is a list of ExampleMachines.
type ExampleMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExampleMachine `json:"items"`
}

// ExampleMachineTemplateSpec is what MachineSets and control planes clone.
type ExampleMachineTemplateSpec struct {
	// +required
	Template ExampleMachineTemplateResource `json:"template"`
}

// ExampleMachineTemplateResource is one clone's metadata and spec.
type ExampleMachineTemplateResource struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +optional
	Spec ExampleMachineSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=examplemachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1_v1alpha2"

// ExampleMachineTemplate is the template of ExampleMachines; the contract makes
// it mandatory (MachineDeployments clone it).
type ExampleMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ExampleMachineTemplateSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// ExampleMachineTemplateList is a list of ExampleMachineTemplates.
type ExampleMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExampleMachineTemplate `json:"items"`
}
