package controller

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
)

// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddresses,verbs=get;list;watch

// claimName is the claim of the i-th pool: deterministic, so a re-run (or a restart between the
// create and the status write) finds it instead of claiming a second address.
func claimName(em *infrav1.ExampleMachine, i int) string {
	return fmt.Sprintf("%s-%d", em.Name, i)
}

// claimAddresses makes sure each pool of spec.addressesFromPools has a claim owned by em and
// returns the addresses the IPAM provider gave, in pool order; done is false while one is missing
// (AddressesClaimed says which, with the claim's own message, e.g. an exhausted pool). The claims'
// status writes re-trigger the reconcile through the Owns watch: nothing polls.
func claimAddresses(ctx context.Context, c client.Client, em *infrav1.ExampleMachine, clusterName string) (addrs []string, done bool, err error) {
	var waiting []string
	for i, pool := range em.Spec.AddressesFromPools {
		claim := &ipamv1.IPAddressClaim{}
		key := client.ObjectKey{Namespace: em.Namespace, Name: claimName(em, i)}
		if err := c.Get(ctx, key, claim); apierrors.IsNotFound(err) {
			if err := c.Create(ctx, newClaim(em, key.Name, clusterName, pool)); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, false, fmt.Errorf("creating IPAddressClaim %s: %w", key.Name, err)
			}
			waiting = append(waiting, key.Name+": created, waiting for its pool's provider")
			continue
		} else if err != nil {
			return nil, false, fmt.Errorf("reading IPAddressClaim %s: %w", key.Name, err)
		}
		if claim.Status.AddressRef.Name == "" {
			waiting = append(waiting, key.Name+": "+claimMessage(claim))
			continue
		}
		addr := &ipamv1.IPAddress{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: em.Namespace, Name: claim.Status.AddressRef.Name}, addr); err != nil {
			return nil, false, fmt.Errorf("reading IPAddress %s of claim %s: %w", claim.Status.AddressRef.Name, key.Name, err)
		}
		addrs = append(addrs, addr.Spec.Address)
	}
	if len(waiting) > 0 {
		conditions.Set(em, metav1.Condition{Type: infrav1.AddressesClaimedCondition, Status: metav1.ConditionFalse,
			Reason: "WaitingForIPAddress", Message: "Waiting for IP addresses: " + strings.Join(waiting, "; ")})
		return nil, false, nil
	}
	if len(em.Spec.AddressesFromPools) > 0 {
		conditions.Set(em, metav1.Condition{Type: infrav1.AddressesClaimedCondition, Status: metav1.ConditionTrue, Reason: "AddressesClaimed"})
	}
	return addrs, true, nil
}

func newClaim(em *infrav1.ExampleMachine, name, clusterName string, pool ipamv1.IPPoolReference) *ipamv1.IPAddressClaim {
	return &ipamv1.IPAddressClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: em.Namespace, Name: name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: clusterName},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: infrav1.GroupVersion.String(), Kind: "ExampleMachine",
				Name: em.Name, UID: em.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: ipamv1.IPAddressClaimSpec{ClusterName: clusterName, PoolRef: pool},
	}
}

// claimMessage is what the claim's Ready condition says, or that the provider has not answered.
func claimMessage(claim *ipamv1.IPAddressClaim) string {
	if cond := meta.FindStatusCondition(claim.Status.Conditions, ipamv1.IPAddressClaimReadyCondition); cond != nil && cond.Message != "" {
		return cond.Message
	}
	return fmt.Sprintf("no answer yet from the provider of %s %s", claim.Spec.PoolRef.Kind, claim.Spec.PoolRef.Name)
}

// releaseAddresses deletes em's claims and says whether they are all gone: the finalizer stays
// until then, so no address is handed to another machine while this one may still use it. A
// management cluster's garbage collector would delete them too, but only after em is gone.
func releaseAddresses(ctx context.Context, c client.Client, em *infrav1.ExampleMachine) (bool, error) {
	gone := true
	for i := range em.Spec.AddressesFromPools {
		claim := &ipamv1.IPAddressClaim{}
		err := c.Get(ctx, client.ObjectKey{Namespace: em.Namespace, Name: claimName(em, i)}, claim)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("reading IPAddressClaim %s: %w", claimName(em, i), err)
		}
		gone = false
		if claim.DeletionTimestamp.IsZero() {
			if err := c.Delete(ctx, claim); client.IgnoreNotFound(err) != nil {
				return false, fmt.Errorf("deleting IPAddressClaim %s: %w", claim.Name, err)
			}
		}
	}
	return gone, nil
}
