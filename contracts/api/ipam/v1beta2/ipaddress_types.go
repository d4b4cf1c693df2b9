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

// IPAddressSpec is the desired state of an IPAddress.
//
// The family rules compare fields, so they sit here rather than on the fields; each is guarded by
// isIP so that an invalid address is reported once, by the rule on the address itself.
// +kubebuilder:validation:XValidation:rule="!has(self.address) || !isIP(self.address) || !has(self.prefix) || self.prefix <= (ip(self.address).family() == 4 ? 32 : 128)",messageExpression="'spec.prefix is too long for the address ' + self.address + ': allowed are 0..32 for an IPv4 address and 0..128 for an IPv6 one'",fieldPath=".prefix"
// +kubebuilder:validation:XValidation:rule="!has(self.gateway) || !isIP(self.gateway) || !has(self.address) || !isIP(self.address) || ip(self.gateway).family() == ip(self.address).family()",messageExpression="'spec.gateway ' + self.gateway + ' is not of the address family (IPv4 or IPv6) of spec.address ' + self.address",fieldPath=".gateway"
type IPAddressSpec struct {
	// claimRef is a reference to the claim this IPAddress was created for.
	// +required
	ClaimRef IPAddressClaimReference `json:"claimRef,omitempty,omitzero"`

	// poolRef is a reference to the pool that this IPAddress was created from.
	// +required
	PoolRef IPPoolReference `json:"poolRef,omitempty,omitzero"`

	// address is the IP address, IPv4 or IPv6 (e.g. 10.0.0.5 or fd00::5).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",messageExpression="'spec.address ' + self + ' is not a valid IPv4 or IPv6 address'"
	Address string `json:"address,omitempty"`

	// prefix is the prefix length of the address's network: 0..32 for IPv4, 0..128 for IPv6.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	Prefix *int32 `json:"prefix,omitempty"`

	// gateway is the network gateway of the network the address is from, of the address's family.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",messageExpression="'spec.gateway ' + self + ' is not a valid IPv4 or IPv6 address'"
	Gateway string `json:"gateway,omitempty"`
}

// IPAddressClaimReference is a reference to an IPAddressClaim in the address's namespace.
type IPAddressClaimReference struct {
	// name of the IPAddressClaim.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`
}

// IPPoolReference is a reference to an IPAM provider's pool in the referrer's namespace.
type IPPoolReference struct {
	// name of the IPPool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`

	// kind of the IPPool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind,omitempty"`

	// apiGroup of the IPPool, a fully qualified domain name (e.g. ipam.cluster.x-k8s.io).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	APIGroup string `json:"apiGroup,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=ipaddresses,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Address",type="string",JSONPath=".spec.address",description="Address"
// +kubebuilder:printcolumn:name="Pool Name",type="string",JSONPath=".spec.poolRef.name",description="Name of the pool the address is from"
// +kubebuilder:printcolumn:name="Pool Kind",type="string",JSONPath=".spec.poolRef.kind",description="Kind of the pool the address is from"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the IPAddress was created"

// IPAddress is an address an IPAM provider allocated from one of its pools for an IPAddressClaim.
type IPAddress struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of IPAddress. It is immutable, as upstream's webhook has it: an
	// allocated address is released by deleting it.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: delete the IPAddress and create a new one"
	Spec IPAddressSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// IPAddressList is a list of IPAddresses.
type IPAddressList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the IPAddresses.
	Items []IPAddress `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &IPAddress{}, &IPAddressList{})
}
