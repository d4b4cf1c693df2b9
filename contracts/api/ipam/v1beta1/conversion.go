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

package v1beta1

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/conversion"
)

// PoolRefUp maps an old-version pool reference (corev1.TypedLocalObjectReference, apiGroup
// optional) to v1beta2's, where an unset apiGroup is empty (and refused at admission).
func PoolRefUp(in corev1.TypedLocalObjectReference) ipamv1.IPPoolReference {
	return ipamv1.IPPoolReference{APIGroup: ptr.Deref(in.APIGroup, ""), Kind: in.Kind, Name: in.Name}
}

// PoolRefDown maps a v1beta2 pool reference to the old versions' shape.
func PoolRefDown(in ipamv1.IPPoolReference) corev1.TypedLocalObjectReference {
	return corev1.TypedLocalObjectReference{APIGroup: conversion.NonZero(in.APIGroup), Kind: in.Kind, Name: in.Name}
}

// PrefixUp maps the old versions' int prefix onto v1beta2's *int32, required there: always set,
// except 0 where the recorded v1beta2 spec (restored; nil when none was recorded) had it unset.
// The old schemas bound the prefix to 0..128, so the narrowing never changes the value of an
// admitted object.
func PrefixUp(in int, restored *int32, recorded bool) *int32 {
	if in == 0 && recorded && restored == nil {
		return nil
	}
	return ptr.To(int32(in))
}

// AddressSpecUp maps the spec the old IPAddress versions share to v1beta2.
func AddressSpecUp(in *IPAddressSpec, restored *ipamv1.IPAddressSpec) ipamv1.IPAddressSpec {
	return ipamv1.IPAddressSpec{
		ClaimRef: ipamv1.IPAddressClaimReference{Name: in.ClaimRef.Name}, PoolRef: PoolRefUp(in.PoolRef),
		Address: in.Address, Prefix: PrefixUp(in.Prefix, restored.Prefix, !conversion.IsZero(*restored)), Gateway: in.Gateway,
	}
}

// AddressSpecDown maps a v1beta2 IPAddress spec to the old versions' shape.
func AddressSpecDown(in *ipamv1.IPAddressSpec) IPAddressSpec {
	return IPAddressSpec{
		ClaimRef: corev1.LocalObjectReference{Name: in.ClaimRef.Name}, PoolRef: PoolRefDown(in.PoolRef),
		Address: in.Address, Prefix: int(ptr.Deref(in.Prefix, 0)), Gateway: in.Gateway,
	}
}

var ipAddressConversion = conversion.SpecOnly(
	func(in *IPAddressSpec, restored *ipamv1.IPAddressSpec) (ipamv1.IPAddressSpec, error) {
		return AddressSpecUp(in, restored), nil
	},
	func(_ context.Context, in *ipamv1.IPAddressSpec, _ string, _ *IPAddressSpec, _ conversion.APIVersionResolver) (IPAddressSpec, error) {
		return AddressSpecDown(in), nil
	},
)

// ConvertIPAddressToHub converts a v1beta1 IPAddress to v1beta2.
func ConvertIPAddressToHub(_ context.Context, src *IPAddress, dst *ipamv1.IPAddress) error {
	return ipAddressConversion.Up(&src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

// ConvertHubToIPAddress converts a v1beta2 IPAddress to v1beta1.
func ConvertHubToIPAddress(ctx context.Context, src *ipamv1.IPAddress, dst *IPAddress, resolver conversion.APIVersionResolver) error {
	return ipAddressConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

// ClaimReadyDerived shows the v1beta1 Ready condition of an IPAddressClaim from the v1beta2 one;
// v1alpha1 shows it too.
var ClaimReadyDerived = clusterv1beta1.DerivedCondition{Type: clusterv1beta1.ReadyV1Beta1Condition, From: ipamv1.IPAddressClaimReadyCondition}

var ipAddressClaimConversion = conversion.KindConversion[IPAddressClaimSpec, IPAddressClaimStatus, ipamv1.IPAddressClaimSpec, ipamv1.IPAddressClaimStatus]{
	SpecUp: func(in *IPAddressClaimSpec, _ *ipamv1.IPAddressClaimSpec) (ipamv1.IPAddressClaimSpec, error) {
		return ipamv1.IPAddressClaimSpec{ClusterName: in.ClusterName, PoolRef: PoolRefUp(in.PoolRef)}, nil
	},
	SpecDown: func(_ context.Context, in *ipamv1.IPAddressClaimSpec, _ string, _ *IPAddressClaimSpec, _ conversion.APIVersionResolver) (IPAddressClaimSpec, error) {
		return IPAddressClaimSpec{ClusterName: in.ClusterName, PoolRef: PoolRefDown(in.PoolRef)}, nil
	},
	StatusUp: func(in *IPAddressClaimStatus, _ *ipamv1.IPAddressClaimStatus) ipamv1.IPAddressClaimStatus {
		out := ipamv1.IPAddressClaimStatus{AddressRef: ipamv1.IPAddressReference{Name: in.AddressRef.Name}}
		if in.V1Beta2 != nil {
			out.Conditions = in.V1Beta2.Conditions
		}
		return out
	},
	StatusDown: func(in *ipamv1.IPAddressClaimStatus) IPAddressClaimStatus {
		out := IPAddressClaimStatus{AddressRef: corev1.LocalObjectReference{Name: in.AddressRef.Name}}
		if len(in.Conditions) > 0 {
			out.V1Beta2 = &IPAddressClaimV1Beta2Status{Conditions: in.Conditions}
		}
		return out
	},
	Derived: clusterv1beta1.DerivedConditions(func(s *IPAddressClaimStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *ipamv1.IPAddressClaimStatus) []metav1.Condition { return s.Conditions }, ClaimReadyDerived),
}

// ConvertIPAddressClaimToHub converts a v1beta1 IPAddressClaim to v1beta2.
func ConvertIPAddressClaimToHub(_ context.Context, src *IPAddressClaim, dst *ipamv1.IPAddressClaim) error {
	return ipAddressClaimConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToIPAddressClaim converts a v1beta2 IPAddressClaim to v1beta1.
func ConvertHubToIPAddressClaim(ctx context.Context, src *ipamv1.IPAddressClaim, dst *IPAddressClaim, resolver conversion.APIVersionResolver) error {
	return ipAddressClaimConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}
