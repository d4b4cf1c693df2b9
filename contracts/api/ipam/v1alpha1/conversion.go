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
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	ipamv1beta1 "capstan.dev/contracts/api/ipam/v1beta1"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/conversion"
)

// The IPAddress spec is the same at v1alpha1 and v1beta1: its mapping is v1beta1's, reached by
// a struct conversion rather than a second copy.
var ipAddressConversion = conversion.SpecOnly(
	func(in *IPAddressSpec, restored *ipamv1.IPAddressSpec) (ipamv1.IPAddressSpec, error) {
		v1beta1 := ipamv1beta1.IPAddressSpec(*in)
		return ipamv1beta1.AddressSpecUp(&v1beta1, restored), nil
	},
	func(_ context.Context, in *ipamv1.IPAddressSpec, _ string, _ *IPAddressSpec, _ conversion.APIVersionResolver) (IPAddressSpec, error) {
		return IPAddressSpec(ipamv1beta1.AddressSpecDown(in)), nil
	},
)

// ConvertIPAddressToHub converts a v1alpha1 IPAddress to v1beta2.
func ConvertIPAddressToHub(_ context.Context, src *IPAddress, dst *ipamv1.IPAddress) error {
	return ipAddressConversion.Up(&src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

// ConvertHubToIPAddress converts a v1beta2 IPAddress to v1alpha1.
func ConvertHubToIPAddress(ctx context.Context, src *ipamv1.IPAddress, dst *IPAddress, resolver conversion.APIVersionResolver) error {
	return ipAddressConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

// v1alpha1 has no spec.clusterName and no v1beta2 conditions: up takes them from the v1beta2
// object recorded by the last down-conversion (restored), so a read-modify-write by a v1alpha1
// client keeps them.
var ipAddressClaimConversion = conversion.KindConversion[IPAddressClaimSpec, IPAddressClaimStatus, ipamv1.IPAddressClaimSpec, ipamv1.IPAddressClaimStatus]{
	SpecUp: func(in *IPAddressClaimSpec, restored *ipamv1.IPAddressClaimSpec) (ipamv1.IPAddressClaimSpec, error) {
		return ipamv1.IPAddressClaimSpec{ClusterName: restored.ClusterName, PoolRef: ipamv1beta1.PoolRefUp(in.PoolRef)}, nil
	},
	SpecDown: func(_ context.Context, in *ipamv1.IPAddressClaimSpec, _ string, _ *IPAddressClaimSpec, _ conversion.APIVersionResolver) (IPAddressClaimSpec, error) {
		return IPAddressClaimSpec{PoolRef: ipamv1beta1.PoolRefDown(in.PoolRef)}, nil
	},
	StatusUp: func(in *IPAddressClaimStatus, restored *ipamv1.IPAddressClaimStatus) ipamv1.IPAddressClaimStatus {
		return ipamv1.IPAddressClaimStatus{AddressRef: ipamv1.IPAddressReference{Name: in.AddressRef.Name}, Conditions: restored.Conditions}
	},
	StatusDown: func(in *ipamv1.IPAddressClaimStatus) IPAddressClaimStatus {
		return IPAddressClaimStatus{AddressRef: corev1.LocalObjectReference{Name: in.AddressRef.Name}}
	},
	Derived: clusterv1beta1.DerivedConditions(func(s *IPAddressClaimStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *ipamv1.IPAddressClaimStatus) []metav1.Condition { return s.Conditions }, ipamv1beta1.ClaimReadyDerived),
}

// ConvertIPAddressClaimToHub converts a v1alpha1 IPAddressClaim to v1beta2.
func ConvertIPAddressClaimToHub(_ context.Context, src *IPAddressClaim, dst *ipamv1.IPAddressClaim) error {
	return ipAddressClaimConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToIPAddressClaim converts a v1beta2 IPAddressClaim to v1alpha1.
func ConvertHubToIPAddressClaim(ctx context.Context, src *ipamv1.IPAddressClaim, dst *IPAddressClaim, resolver conversion.APIVersionResolver) error {
	return ipAddressClaimConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}
