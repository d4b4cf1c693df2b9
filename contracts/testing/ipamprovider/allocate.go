package ipamprovider

import (
	"context"
	"fmt"
	"net/netip"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/conditions"
)

// AllocatedReason is the Ready reason of a claim that has its address.
const AllocatedReason = "Allocated"

// reconcileNormal gives the claim its address: the one already created for it, or the lowest
// free address of the pool.
func (r *Reconciler) reconcileNormal(ctx context.Context, claim *ipamv1.IPAddressClaim) error {
	addr := &ipamv1.IPAddress{}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(claim), addr)
	switch {
	case err == nil:
		if !controlledBy(addr, claim) {
			notReady(claim, ipamv1.IPAddressClaimReadyAllocationFailedReason,
				fmt.Sprintf("IPAddress %s/%s exists and belongs to no claim of this name: delete it or rename the claim", addr.Namespace, addr.Name))
			return nil
		}
		ready(claim, addr)
		return nil
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading IPAddress %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	p, err := r.readPool(ctx, claim)
	if err != nil || p == nil {
		return err
	}
	used, err := r.usedAddresses(ctx, claim.Namespace, claim.Spec.PoolRef)
	if err != nil {
		return err
	}
	free, ok := p.lowestFree(used)
	if !ok {
		notReady(claim, ipamv1.IPAddressClaimReadyPoolExhaustedReason,
			fmt.Sprintf("TestIPPool %s/%s is exhausted: all its %d addresses are allocated; add addresses to the pool or delete a claim",
				claim.Namespace, claim.Spec.PoolRef.Name, len(p.addresses)))
		return nil
	}
	addr = newAddress(claim, p, free)
	if err := controllerutil.SetControllerReference(claim, addr, r.Client.Scheme()); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("Allocating address", "IPAddress", client.ObjectKeyFromObject(addr), "address", free.String())
	if err := r.Client.Create(ctx, addr); err != nil {
		return fmt.Errorf("creating IPAddress %s/%s: %w", addr.Namespace, addr.Name, err)
	}
	ready(claim, addr)
	return nil
}

func newAddress(claim *ipamv1.IPAddressClaim, p *pool, a netip.Addr) *ipamv1.IPAddress {
	addr := &ipamv1.IPAddress{}
	addr.Namespace, addr.Name = claim.Namespace, claim.Name
	prefix := p.prefix
	addr.Spec = ipamv1.IPAddressSpec{ClaimRef: ipamv1.IPAddressClaimReference{Name: claim.Name}, PoolRef: claim.Spec.PoolRef,
		Address: a.String(), Prefix: &prefix, Gateway: p.gateway}
	return addr
}

// readPool reads the claim's pool; nil (and the claim not Ready) when it is missing or wrong.
func (r *Reconciler) readPool(ctx context.Context, claim *ipamv1.IPAddressClaim) (*pool, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(PoolGVK)
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: claim.Namespace, Name: claim.Spec.PoolRef.Name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			notReady(claim, ipamv1.IPAddressClaimReadyPoolNotReadyReason,
				fmt.Sprintf("TestIPPool %s/%s not found: create it", claim.Namespace, claim.Spec.PoolRef.Name))
			return nil, nil
		}
		return nil, fmt.Errorf("reading TestIPPool %s/%s: %w", claim.Namespace, claim.Spec.PoolRef.Name, err)
	}
	p, err := parsePool(u)
	if err != nil {
		notReady(claim, ipamv1.IPAddressClaimReadyPoolNotReadyReason,
			fmt.Sprintf("TestIPPool %s/%s is invalid: %v", claim.Namespace, claim.Spec.PoolRef.Name, err))
		return nil, nil
	}
	return p, nil
}

// usedAddresses are the addresses of the pool's IPAddresses, read live: this is the only
// record of what is allocated, so it survives restarts.
func (r *Reconciler) usedAddresses(ctx context.Context, namespace string, ref ipamv1.IPPoolReference) (map[netip.Addr]bool, error) {
	list := &ipamv1.IPAddressList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the IPAddresses of namespace %s: %w", namespace, err)
	}
	used := map[netip.Addr]bool{}
	for _, a := range list.Items {
		if a.Spec.PoolRef != ref {
			continue
		}
		if ip, err := netip.ParseAddr(a.Spec.Address); err == nil {
			used[ip] = true
		}
	}
	return used, nil
}

// reconcileDelete releases the claim's address, then lets the claim go.
func (r *Reconciler) reconcileDelete(ctx context.Context, claim *ipamv1.IPAddressClaim) error {
	addr := &ipamv1.IPAddress{}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(claim), addr)
	switch {
	case err == nil && controlledBy(addr, claim):
		ctrl.LoggerFrom(ctx).Info("Releasing address", "IPAddress", client.ObjectKeyFromObject(addr), "address", addr.Spec.Address)
		if err := r.Client.Delete(ctx, addr); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting IPAddress %s/%s: %w", addr.Namespace, addr.Name, err)
		}
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("reading IPAddress %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	controllerutil.RemoveFinalizer(claim, ReleaseFinalizer)
	return nil
}

func ready(claim *ipamv1.IPAddressClaim, addr *ipamv1.IPAddress) {
	claim.Status.AddressRef = ipamv1.IPAddressReference{Name: addr.Name}
	conditions.Set(claim, conditions.True(ipamv1.IPAddressClaimReadyCondition, AllocatedReason,
		fmt.Sprintf("Allocated %s/%d from TestIPPool %s", addr.Spec.Address, *addr.Spec.Prefix, claim.Spec.PoolRef.Name)))
}

func notReady(claim *ipamv1.IPAddressClaim, reason, message string) {
	conditions.Set(claim, conditions.False(ipamv1.IPAddressClaimReadyCondition, reason, message))
}

// controlledBy reports whether addr's controller is claim (by UID, so an address left
// by an earlier claim of the same name is not taken for this one's).
func controlledBy(addr *ipamv1.IPAddress, claim *ipamv1.IPAddressClaim) bool {
	for _, ref := range addr.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return ref.UID == claim.UID
		}
	}
	return false
}
