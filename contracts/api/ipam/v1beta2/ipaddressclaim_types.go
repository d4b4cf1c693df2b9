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

package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The IPAddressClaim's Ready condition and its reasons, as upstream's IPAM providers set them.
const (
	// IPAddressClaimReadyCondition is True once an address is allocated for the claim.
	IPAddressClaimReadyCondition = "Ready"

	// IPAddressClaimReadyAllocationFailedReason: allocating failed; the message says why.
	IPAddressClaimReadyAllocationFailedReason = "AllocationFailed"

	// IPAddressClaimReadyPoolNotReadyReason: the referenced pool is not ready (or not found).
	IPAddressClaimReadyPoolNotReadyReason = "PoolNotReady"

	// IPAddressClaimReadyPoolExhaustedReason: the referenced pool has no free address left.
	IPAddressClaimReadyPoolExhaustedReason = "PoolExhausted"
)

// IPAddressClaimSpec is the desired state of an IPAddressClaim.
type IPAddressClaimSpec struct {
	// clusterName is the name of the Cluster this object belongs to.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	ClusterName string `json:"clusterName,omitempty"`

	// poolRef is a reference to the pool from which an IP address should be created.
	// +required
	PoolRef IPPoolReference `json:"poolRef,omitempty,omitzero"`
}

// IPAddressClaimStatus is the observed status of an IPAddressClaim.
// +kubebuilder:validation:MinProperties=1
type IPAddressClaimStatus struct {
	// conditions represents the observations of an IPAddressClaim's current state.
	// Known condition types are Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// addressRef is a reference to the address that was created for this claim.
	// +optional
	AddressRef IPAddressReference `json:"addressRef,omitempty,omitzero"`
}

// IPAddressReference is a reference to an IPAddress in the claim's namespace.
type IPAddressReference struct {
	// name of the IPAddress.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=ipaddressclaims,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Pool Name",type="string",JSONPath=".spec.poolRef.name",description="Name of the pool to allocate an address from"
// +kubebuilder:printcolumn:name="Pool Kind",type="string",JSONPath=".spec.poolRef.kind",description="Kind of the pool to allocate an address from"
// +kubebuilder:printcolumn:name="Address",type="string",JSONPath=".status.addressRef.name",description="The IPAddress allocated for the claim",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the IPAddressClaim was created"

// IPAddressClaim asks the IPAM provider that owns the referenced pool for an IP address.
type IPAddressClaim struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of IPAddressClaim. It is immutable, as upstream's webhook has it:
	// an address is allocated once, for the pool first named.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: delete the IPAddressClaim and create a new one"
	Spec IPAddressClaimSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of IPAddressClaim.
	// +optional
	Status IPAddressClaimStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the IPAddressClaim's conditions, for shared condition helpers.
func (c *IPAddressClaim) GetConditions() []metav1.Condition {
	return c.Status.Conditions
}

// SetConditions replaces the IPAddressClaim's conditions, for shared condition helpers.
func (c *IPAddressClaim) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// IPAddressClaimList is a list of IPAddressClaims.
type IPAddressClaimList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the IPAddressClaims.
	Items []IPAddressClaim `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &IPAddressClaim{}, &IPAddressClaimList{})
}
