package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ipamv1alpha1 "capstan.dev/contracts/api/ipam/v1alpha1"
	ipamv1beta1 "capstan.dev/contracts/api/ipam/v1beta1"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestConversion_IPAMKindsAreServedAtV1Alpha1AndV1Beta1 writes an IPAddressClaim at v1alpha1 and
// at v1beta1, gives it an address as a v1beta2 IPAM provider would (status.addressRef, Ready)
// and reads both back at the old versions: the address reference, the Ready condition derived
// as a v1beta1 one, and the v1beta2 spec.clusterName that v1alpha1 cannot say kept across a
// v1alpha1 update. An IPAddress written at v1beta1 is refused by the v1beta2 rules.
func TestConversion_IPAMKindsAreServedAtV1Alpha1AndV1Beta1(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "conversion-ipam")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)
	pool := corev1.TypedLocalObjectReference{APIGroup: ptr.To("ipam.cluster.x-k8s.io"), Kind: "InClusterIPPool", Name: "pool"}

	beta := &ipamv1beta1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Name: "beta", Namespace: ns},
		Spec: ipamv1beta1.IPAddressClaimSpec{ClusterName: "c1", PoolRef: pool}}
	require.NoError(t, old.Create(ctx, beta))
	hub := &ipamv1.IPAddressClaim{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(beta), hub))
	require.Equal(t, ipamv1.IPAddressClaimSpec{ClusterName: "c1", PoolRef: ipamv1.IPPoolReference{APIGroup: "ipam.cluster.x-k8s.io",
		Kind: "InClusterIPPool", Name: "pool"}}, hub.Spec)
	allocate(t, hub, "beta-addr")
	gotBeta := &ipamv1beta1.IPAddressClaim{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(beta), gotBeta))
	require.Equal(t, "beta-addr", gotBeta.Status.AddressRef.Name)
	require.Len(t, gotBeta.Status.Conditions, 1)
	require.Equal(t, "Ready", gotBeta.Status.Conditions[0].Type, "the v1beta1 Ready condition is derived from the v1beta2 one")
	require.True(t, meta.IsStatusConditionTrue(gotBeta.Status.V1Beta2.Conditions, ipamv1.IPAddressClaimReadyCondition))

	alpha := &ipamv1alpha1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: ns},
		Spec: ipamv1alpha1.IPAddressClaimSpec{PoolRef: pool}}
	require.NoError(t, old.Create(ctx, alpha))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(alpha), hub))
	allocate(t, hub, "alpha-addr")
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(alpha), alpha))
	require.Equal(t, "alpha-addr", alpha.Status.AddressRef.Name)
	require.Equal(t, "Ready", alpha.Status.Conditions[0].Type)
	alpha.Labels = map[string]string{"updated-at": "v1alpha1"}
	require.NoError(t, old.Update(ctx, alpha))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(alpha), hub))
	require.Equal(t, "v1alpha1", hub.Labels["updated-at"])
	require.True(t, meta.IsStatusConditionTrue(hub.Status.Conditions, ipamv1.IPAddressClaimReadyCondition), "a v1alpha1 write keeps the v1beta2 conditions")

	addr := &ipamv1beta1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: ns}, Spec: ipamv1beta1.IPAddressSpec{
		ClaimRef: corev1.LocalObjectReference{Name: "beta"}, PoolRef: pool, Address: "10.0.0.5", Prefix: 33}}
	require.ErrorContains(t, old.Create(ctx, addr), "spec.prefix is too long for the address 10.0.0.5", "the v1beta2 rules hold at v1beta1")
	addr.Spec.Prefix = 24
	require.NoError(t, old.Create(ctx, addr))
	hubAddr := &ipamv1.IPAddress{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(addr), hubAddr))
	require.Equal(t, ptr.To[int32](24), hubAddr.Spec.Prefix)
}

// allocate writes what an IPAM provider writes on a claim it served.
func allocate(t *testing.T, claim *ipamv1.IPAddressClaim, address string) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, claim, func() {
		claim.Status.AddressRef.Name = address
		meta.SetStatusCondition(&claim.Status.Conditions, metav1.Condition{Type: ipamv1.IPAddressClaimReadyCondition,
			Status: metav1.ConditionTrue, Reason: "Allocated"})
	})
}
