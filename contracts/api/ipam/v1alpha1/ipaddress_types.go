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

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IPAddressSpec is upstream's v1alpha1 IPAddressSpec.
type IPAddressSpec struct {
	// claimRef is a reference to the claim this IPAddress was created for.
	// +required
	ClaimRef corev1.LocalObjectReference `json:"claimRef"`

	// poolRef is a reference to the pool that this IPAddress was created from.
	// +required
	PoolRef corev1.TypedLocalObjectReference `json:"poolRef"`

	// address is the IP address.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=39
	Address string `json:"address"`

	// prefix is the prefix of the address. Bounded here (upstream's schema is not) so that it
	// converts to v1beta2's int32 unchanged; the family's bound is checked in v1beta2.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	Prefix int `json:"prefix"`

	// gateway is the network gateway of the network the address is from.
	// +optional
	// +kubebuilder:validation:MaxLength=39
	Gateway string `json:"gateway,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=ipaddresses,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="ipam.cluster.x-k8s.io/v1alpha1 IPAddress is deprecated; use ipam.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Address",type="string",JSONPath=".spec.address",description="Address"
// +kubebuilder:printcolumn:name="Pool Name",type="string",JSONPath=".spec.poolRef.name",description="Name of the pool the address is from"
// +kubebuilder:printcolumn:name="Pool Kind",type="string",JSONPath=".spec.poolRef.kind",description="Kind of the pool the address is from"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the IPAddress was created"

// IPAddress is the Schema for the ipaddress API at v1alpha1.
type IPAddress struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of IPAddress.
	// +optional
	Spec IPAddressSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// IPAddressList is a list of IPAddress.
type IPAddressList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of IPAddresses.
	Items []IPAddress `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &IPAddress{}, &IPAddressList{})
}
