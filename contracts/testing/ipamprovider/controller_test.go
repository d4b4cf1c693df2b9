package ipamprovider_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/ipamprovider"
)

const wait = 30 * time.Second

// startProvider runs the provider until the test ends or stop is called.
func startProvider(t *testing.T) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, "ipamprovider", env.Config)
	r := &ipamprovider.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()}
	require.NoError(t, r.SetupWithManager(mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	return envtest.StartManager(t, mgr)
}

func createPool(t *testing.T, ns, name string, addresses ...string) {
	t.Helper()
	require.NoError(t, env.Client.Create(context.Background(), ipamprovider.NewPool(ns, name, addresses, 24, "10.0.0.1")))
}

func createClaim(t *testing.T, ns, name, pool string) *ipamv1.IPAddressClaim {
	t.Helper()
	c := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: ipamv1.IPAddressClaimSpec{ClusterName: "c1", PoolRef: ipamprovider.PoolRef(pool)}}
	require.NoError(t, env.Client.Create(context.Background(), c))
	return c
}

// waitForReady waits for the claim's Ready condition to have status and reason, and returns the claim.
func waitForReady(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string) *ipamv1.IPAddressClaim {
	t.Helper()
	c := &ipamv1.IPAddressClaim{}
	envtest.WaitFor(t, wait, fmt.Sprintf("IPAddressClaim %s Ready %s (%s)", name, status, reason), func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, c); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, ipamv1.IPAddressClaimReadyCondition)
		return cond != nil && cond.Status == status && cond.Reason == reason, nil
	})
	return c
}

// requireAddress requires the claim's IPAddress to hold want and be owned by the claim.
func requireAddress(t *testing.T, claim *ipamv1.IPAddressClaim, want string) {
	t.Helper()
	require.Equal(t, claim.Name, claim.Status.AddressRef.Name)
	addr := &ipamv1.IPAddress{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: claim.Namespace, Name: claim.Status.AddressRef.Name}, addr))
	require.Equal(t, ipamv1.IPAddressSpec{ClaimRef: ipamv1.IPAddressClaimReference{Name: claim.Name}, PoolRef: claim.Spec.PoolRef,
		Address: want, Prefix: ptr.To[int32](24), Gateway: "10.0.0.1"}, addr.Spec)
	require.Len(t, addr.OwnerReferences, 1)
	owner := addr.OwnerReferences[0]
	require.Equal(t, claim.UID, owner.UID)
	require.True(t, *owner.Controller && *owner.BlockOwnerDeletion, "the claim controls the address and blocks its own deletion until it is gone")
}

func TestIPAMProvider_AllocatesTheLowestFreeAddressToEachClaim(t *testing.T) {
	startProvider(t)
	ns := env.CreateNamespace(t, "ipam-allocate")
	createPool(t, ns, "pool", "10.0.0.1-10.0.0.4")
	createClaim(t, ns, "a", "pool")
	a := waitForReady(t, ns, "a", metav1.ConditionTrue, ipamprovider.AllocatedReason)
	requireAddress(t, a, "10.0.0.2") // 10.0.0.1 is the gateway
	require.Contains(t, a.Finalizers, ipamprovider.ReleaseFinalizer)
	createClaim(t, ns, "b", "pool")
	requireAddress(t, waitForReady(t, ns, "b", metav1.ConditionTrue, ipamprovider.AllocatedReason), "10.0.0.3")
}

func TestIPAMProvider_ReleasesTheAddressWhenTheClaimIsDeleted(t *testing.T) {
	ctx := context.Background()
	startProvider(t)
	ns := env.CreateNamespace(t, "ipam-release")
	createPool(t, ns, "pool", "10.0.0.2-10.0.0.3")
	a := createClaim(t, ns, "a", "pool")
	waitForReady(t, ns, "a", metav1.ConditionTrue, ipamprovider.AllocatedReason)
	createClaim(t, ns, "b", "pool")
	waitForReady(t, ns, "b", metav1.ConditionTrue, ipamprovider.AllocatedReason)

	require.NoError(t, env.Client.Delete(ctx, a))
	envtest.WaitFor(t, wait, "claim a and its address to be gone", func() (bool, error) {
		errClaim := env.Client.Get(ctx, client.ObjectKeyFromObject(a), &ipamv1.IPAddressClaim{})
		errAddr := env.Client.Get(ctx, client.ObjectKeyFromObject(a), &ipamv1.IPAddress{})
		return apierrors.IsNotFound(errClaim) && apierrors.IsNotFound(errAddr), nil
	})
	createClaim(t, ns, "c", "pool")
	requireAddress(t, waitForReady(t, ns, "c", metav1.ConditionTrue, ipamprovider.AllocatedReason), "10.0.0.2")
}

func TestIPAMProvider_ExhaustedPoolIsNamedInTheClaimsReadyConditionUntilAnAddressIsReleased(t *testing.T) {
	startProvider(t)
	ns := env.CreateNamespace(t, "ipam-exhausted")
	createPool(t, ns, "small", "10.0.0.2")
	createClaim(t, ns, "a", "small")
	waitForReady(t, ns, "a", metav1.ConditionTrue, ipamprovider.AllocatedReason)
	createClaim(t, ns, "b", "small")
	b := waitForReady(t, ns, "b", metav1.ConditionFalse, ipamv1.IPAddressClaimReadyPoolExhaustedReason)
	require.Equal(t, "TestIPPool "+ns+"/small is exhausted: all its 1 addresses are allocated; add addresses to the pool or delete a claim",
		meta.FindStatusCondition(b.Status.Conditions, ipamv1.IPAddressClaimReadyCondition).Message)
	require.Empty(t, b.Status.AddressRef.Name)

	// The claim that waited gets the address released by another claim's deletion.
	require.NoError(t, env.Client.Delete(context.Background(), &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}}))
	b = waitForReady(t, ns, "b", metav1.ConditionTrue, ipamprovider.AllocatedReason)
	requireAddress(t, b, "10.0.0.2")

	createClaim(t, ns, "nopool", "missing")
	c := waitForReady(t, ns, "nopool", metav1.ConditionFalse, ipamv1.IPAddressClaimReadyPoolNotReadyReason)
	require.Contains(t, meta.FindStatusCondition(c.Status.Conditions, ipamv1.IPAddressClaimReadyCondition).Message, "TestIPPool "+ns+"/missing not found")
}

// TestIPAMProvider_AllocatesNoAddressTwiceAcrossARestart: the allocation is read from the
// IPAddresses, so claims made while the provider was down get the next free addresses.
func TestIPAMProvider_AllocatesNoAddressTwiceAcrossARestart(t *testing.T) {
	ctx := context.Background()
	stop := startProvider(t)
	ns := env.CreateNamespace(t, "ipam-restart")
	createPool(t, ns, "pool", "10.0.0.0/29")
	createClaim(t, ns, "a", "pool")
	requireAddress(t, waitForReady(t, ns, "a", metav1.ConditionTrue, ipamprovider.AllocatedReason), "10.0.0.2")
	stop()

	for _, name := range []string{"b", "c"} {
		createClaim(t, ns, name, "pool")
	}
	startProvider(t)
	b := waitForReady(t, ns, "b", metav1.ConditionTrue, ipamprovider.AllocatedReason)
	c := waitForReady(t, ns, "c", metav1.ConditionTrue, ipamprovider.AllocatedReason)
	got := map[string]bool{}
	for _, claim := range []*ipamv1.IPAddressClaim{b, c} {
		addr := &ipamv1.IPAddress{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: claim.Status.AddressRef.Name}, addr))
		got[addr.Spec.Address] = true
	}
	require.Equal(t, map[string]bool{"10.0.0.3": true, "10.0.0.4": true}, got)
	list := &ipamv1.IPAddressList{}
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns)))
	require.Len(t, list.Items, 3, "one address per claim")
	requireAddress(t, waitForReady(t, ns, "a", metav1.ConditionTrue, ipamprovider.AllocatedReason), "10.0.0.2")
}

// TestIPAMProvider_ClaimPausesWithItsCluster: a claim of a paused Cluster gets no address and a
// Paused condition saying why; unpausing the Cluster resumes it.
func TestIPAMProvider_ClaimPausesWithItsCluster(t *testing.T) {
	ctx := context.Background()
	startProvider(t)
	ns := env.CreateNamespace(t, "ipam-paused")
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1"}, Spec: clusterv1.ClusterSpec{
		Paused:            ptr.To(true),
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerCluster", Name: "c1"},
		ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: "c1"},
	}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	createPool(t, ns, "pool", "10.0.0.2")
	claim := createClaim(t, ns, "a", "pool")
	envtest.WaitFor(t, wait, "the claim to be Paused", func() (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim); err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(claim.Status.Conditions, clusterv1.PausedCondition), nil
	})
	require.Empty(t, claim.Status.AddressRef.Name)
	require.Nil(t, meta.FindStatusCondition(claim.Status.Conditions, ipamv1.IPAddressClaimReadyCondition))

	envtest.Update(t, env.Client, cluster, func() { cluster.Spec.Paused = ptr.To(false) })
	requireAddress(t, waitForReady(t, ns, "a", metav1.ConditionTrue, ipamprovider.AllocatedReason), "10.0.0.2")
}
