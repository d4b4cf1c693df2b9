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
	"testing"

	"sigs.k8s.io/randfill"

	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

// prefixFuncs make prefixes the API server could hold: required at v1beta2, within 0..128 at
// the old version.
var prefixFuncs = []any{
	func(s *ipamv1.IPAddressSpec, c randfill.Continue) {
		c.FillNoCustom(s)
		p := int32(c.Intn(129))
		s.Prefix = &p
	},
	func(s *IPAddressSpec, c randfill.Continue) {
		c.FillNoCustom(s)
		s.Prefix = c.Intn(129)
	},
}

func TestFuzzRoundTrip_IPAddress(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *ipamv1.IPAddress { return &ipamv1.IPAddress{} },
		func() *IPAddress { return &IPAddress{} }, ConvertIPAddressToHub, ConvertHubToIPAddress,
		func(seed int64) *randfill.Filler { return conversionfuzz.Filler(seed, prefixFuncs...) })
}

func TestFuzzRoundTrip_IPAddressClaim(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *ipamv1.IPAddressClaim { return &ipamv1.IPAddressClaim{} },
		func() *IPAddressClaim { return &IPAddressClaim{} }, ConvertIPAddressClaimToHub, ConvertHubToIPAddressClaim,
		conversionfuzz.ShownFiller(ipAddressClaimConversion.ShowDerived))
}
