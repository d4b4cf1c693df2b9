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

package v1beta2_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
)

var pool = ipamv1.IPPoolReference{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "pool"}

func newClaim(ns string) *ipamv1.IPAddressClaim {
	return &ipamv1.IPAddressClaim{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "claim-", Namespace: ns},
		Spec:       ipamv1.IPAddressClaimSpec{ClusterName: "c1", PoolRef: pool},
	}
}

func newAddress(ns, address string, prefix int32, gateway string) *ipamv1.IPAddress {
	return &ipamv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "addr-", Namespace: ns},
		Spec: ipamv1.IPAddressSpec{ClaimRef: ipamv1.IPAddressClaimReference{Name: "claim"}, PoolRef: pool,
			Address: address, Prefix: ptr.To(prefix), Gateway: gateway},
	}
}

func TestAdmission_AcceptsValidIPAddresses(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "ipam-admission")
	for _, a := range []*ipamv1.IPAddress{
		newAddress(ns, "10.0.0.5", 24, "10.0.0.1"),
		newAddress(ns, "10.0.0.6", 32, ""),
		newAddress(ns, "0.0.0.0", 0, ""),
		newAddress(ns, "fd00::5", 64, "fd00::1"),
		newAddress(ns, "2001:db8::1", 128, ""),
	} {
		require.NoError(t, env.Client.Create(ctx, a), "%s/%d gateway %q", a.Spec.Address, *a.Spec.Prefix, a.Spec.Gateway)
	}
	require.NoError(t, env.Client.Create(ctx, newClaim(ns)))
}

// TestAdmission_RejectsInvalidIPAddresses sends one invalid IPAddress per rule (upstream's
// webhook rules, here in the CRD) and checks the apiserver names the field and what is allowed.
func TestAdmission_RejectsInvalidIPAddresses(t *testing.T) {
	ns := env.CreateNamespace(t, "ipam-admission")
	for _, tc := range []struct {
		name string
		addr *ipamv1.IPAddress
		want []string
	}{
		{"AddressNotAnIP", newAddress(ns, "10.0.0.300", 24, ""), []string{"spec.address", "spec.address 10.0.0.300 is not a valid IPv4 or IPv6 address"}},
		{"AddressIsACIDR", newAddress(ns, "10.0.0.0/24", 24, ""), []string{"spec.address 10.0.0.0/24 is not a valid IPv4 or IPv6 address"}},
		{"AddressHostname", newAddress(ns, "node-1", 24, ""), []string{"spec.address node-1 is not a valid IPv4 or IPv6 address"}},
		{"IPv4PrefixTooLong", newAddress(ns, "10.0.0.5", 33, ""),
			[]string{"spec.prefix", "spec.prefix is too long for the address 10.0.0.5: allowed are 0..32 for an IPv4 address and 0..128 for an IPv6 one"}},
		{"IPv6PrefixTooLong", newAddress(ns, "fd00::5", 129, ""), []string{"spec.prefix", "should be less than or equal to 128"}},
		{"PrefixNegative", newAddress(ns, "10.0.0.5", -1, ""), []string{"spec.prefix", "should be greater than or equal to 0"}},
		{"GatewayNotAnIP", newAddress(ns, "10.0.0.5", 24, "gw"), []string{"spec.gateway", "spec.gateway gw is not a valid IPv4 or IPv6 address"}},
		{"GatewayOtherFamily", newAddress(ns, "10.0.0.5", 24, "fd00::1"),
			[]string{"spec.gateway", "spec.gateway fd00::1 is not of the address family (IPv4 or IPv6) of spec.address 10.0.0.5"}},
		{"NoPoolKind", func() *ipamv1.IPAddress { a := newAddress(ns, "10.0.0.5", 24, ""); a.Spec.PoolRef.Kind = ""; return a }(),
			[]string{"spec.poolRef.kind: Required value"}},
		{"NoClaimRef", func() *ipamv1.IPAddress { a := newAddress(ns, "10.0.0.5", 24, ""); a.Spec.ClaimRef.Name = ""; return a }(),
			[]string{"spec.claimRef: Required value"}},
		{"NoPrefix", func() *ipamv1.IPAddress { a := newAddress(ns, "10.0.0.5", 24, ""); a.Spec.Prefix = nil; return a }(),
			[]string{"spec.prefix: Required value"}},
	} {
		t.Run(tc.name, func(t *testing.T) { env.RequireInvalid(t, tc.addr, tc.want...) })
	}
}

func TestAdmission_RejectsIPAddressClaimsWithoutAPoolReference(t *testing.T) {
	ns := env.CreateNamespace(t, "ipam-admission")
	for _, tc := range []struct {
		name   string
		mutate func(*ipamv1.IPPoolReference)
		want   string
	}{
		{"NoAPIGroup", func(r *ipamv1.IPPoolReference) { r.APIGroup = "" }, "spec.poolRef.apiGroup: Required value"},
		{"NoKind", func(r *ipamv1.IPPoolReference) { r.Kind = "" }, "spec.poolRef.kind: Required value"},
		{"NoName", func(r *ipamv1.IPPoolReference) { r.Name = "" }, "spec.poolRef.name: Required value"},
		{"KindNotAKind", func(r *ipamv1.IPPoolReference) { r.Kind = "In Cluster" }, "spec.poolRef.kind: Invalid value"},
		{"NoPoolRef", func(r *ipamv1.IPPoolReference) { *r = ipamv1.IPPoolReference{} }, "spec.poolRef: Required value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClaim(ns)
			tc.mutate(&c.Spec.PoolRef)
			env.RequireInvalid(t, c, tc.want)
		})
	}
}

// TestAdmission_IPAMSpecsAreImmutable: as upstream's webhooks, neither kind's spec can change once
// created, while a claim's status (written by the IPAM provider) and metadata can.
func TestAdmission_IPAMSpecsAreImmutable(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "ipam-admission")
	claim := newClaim(ns)
	require.NoError(t, env.Client.Create(ctx, claim))
	claim.Spec.PoolRef.Name = "other"
	requireInvalidUpdate(t, claim, "spec is immutable: delete the IPAddressClaim and create a new one")

	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim))
	claim.Status.AddressRef.Name = "addr"
	require.NoError(t, env.Client.Status().Update(ctx, claim), "the status may change")
	claim.Labels = map[string]string{"cluster.x-k8s.io/cluster-name": "c1"}
	require.NoError(t, env.Client.Update(ctx, claim), "the metadata may change")

	addr := newAddress(ns, "10.0.0.5", 24, "10.0.0.1")
	require.NoError(t, env.Client.Create(ctx, addr))
	for _, mutate := range []func(*ipamv1.IPAddressSpec){
		func(s *ipamv1.IPAddressSpec) { s.Address = "10.0.0.6" },
		func(s *ipamv1.IPAddressSpec) { s.Gateway = "" },
		func(s *ipamv1.IPAddressSpec) { s.ClaimRef.Name = "other" },
	} {
		cur := &ipamv1.IPAddress{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(addr), cur))
		mutate(&cur.Spec)
		requireInvalidUpdate(t, cur, "spec is immutable: delete the IPAddress and create a new one")
	}
}

func requireInvalidUpdate(t *testing.T, obj client.Object, want string) {
	t.Helper()
	err := env.Client.Update(context.Background(), obj)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	require.ErrorContains(t, err, want)
}
