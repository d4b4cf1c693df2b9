package ipamprovider

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// ReleaseFinalizer keeps a claim until its address is released (upstream's in-cluster
// provider's name for it).
const ReleaseFinalizer = "ipam.cluster.x-k8s.io/ReleaseAddress"

// Reconciler allocates addresses of TestIPPools to the IPAddressClaims that reference one.
type Reconciler struct {
	Client client.Client
	// APIReader lists the pool's IPAddresses live: the cache may not show the address created
	// for the previous claim yet, and allocating from it would hand that address out twice.
	APIReader client.Reader
}

// SetupWithManager registers the controller: claims of a TestIPPool, and the Clusters they
// belong to (an unpaused Cluster resumes its claims).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil || r.APIReader == nil {
		return fmt.Errorf("ipamprovider reconciler needs Client and APIReader")
	}
	err := ctrl.NewControllerManagedBy(mgr).
		For(&ipamv1.IPAddressClaim{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return ownsPool(o.(*ipamv1.IPAddressClaim))
		}))).
		Owns(&ipamv1.IPAddress{}).
		// A released address may be what a claim of an exhausted pool waits for.
		Watches(&ipamv1.IPAddress{}, handler.EnqueueRequestsFromMapFunc(r.releasedToWaitingClaims),
			builder.WithPredicates(predicate.Funcs{
				CreateFunc: func(event.CreateEvent) bool { return false },
				UpdateFunc: func(event.UpdateEvent) bool { return false },
			})).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToClaims)).
		WithOptions(opts).
		Complete(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the ipamprovider controller: %w", err)
	}
	return nil
}

func ownsPool(c *ipamv1.IPAddressClaim) bool {
	return c.Spec.PoolRef.APIGroup == PoolGVK.Group && c.Spec.PoolRef.Kind == PoolGVK.Kind
}

// clusterName is the Cluster a claim belongs to: spec.clusterName, or the cluster-name label
// that v1alpha1 claims (which have no spec.clusterName) carry.
func clusterName(c *ipamv1.IPAddressClaim) string {
	if c.Spec.ClusterName != "" {
		return c.Spec.ClusterName
	}
	return c.Labels[clusterv1.ClusterNameLabel]
}

func (r *Reconciler) clusterToClaims(ctx context.Context, o client.Object) []reconcile.Request {
	claims := &ipamv1.IPAddressClaimList{}
	if err := r.Client.List(ctx, claims, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing IPAddressClaims", "Cluster", client.ObjectKeyFromObject(o))
		return nil
	}
	var out []reconcile.Request
	for i := range claims.Items {
		if c := &claims.Items[i]; ownsPool(c) && clusterName(c) == o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(c)})
		}
	}
	return out
}

// releasedToWaitingClaims maps a deleted IPAddress to the claims of its pool that have none yet.
func (r *Reconciler) releasedToWaitingClaims(ctx context.Context, o client.Object) []reconcile.Request {
	addr, ok := o.(*ipamv1.IPAddress)
	if !ok {
		return nil
	}
	claims := &ipamv1.IPAddressClaimList{}
	if err := r.Client.List(ctx, claims, client.InNamespace(addr.Namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing IPAddressClaims", "IPAddress", client.ObjectKeyFromObject(addr))
		return nil
	}
	var out []reconcile.Request
	for i := range claims.Items {
		if c := &claims.Items[i]; ownsPool(c) && c.Spec.PoolRef == addr.Spec.PoolRef && c.Status.AddressRef.Name == "" {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(c)})
		}
	}
	return out
}

// Reconcile allocates an address to the claim, or releases it when the claim is deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	claim := &ipamv1.IPAddressClaim{}
	if err := r.Client.Get(ctx, req.NamespacedName, claim); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ownsPool(claim) {
		return ctrl.Result{}, nil
	}
	cluster, err := r.cluster(ctx, claim)
	if err != nil {
		return ctrl.Result{}, err
	}
	helper, err := patch.NewHelper(claim, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() {
		if err := helper.Patch(ctx, claim); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
		}
	}()
	if predicates.SetPausedCondition(claim, cluster) {
		return ctrl.Result{}, nil
	}
	if !claim.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, claim)
	}
	// The finalizer is written before any address is made, so no address outlives its claim
	// unreleased; writing it brings the claim back (an update event).
	if controllerutil.AddFinalizer(claim, ReleaseFinalizer) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, r.reconcileNormal(ctx, claim)
}

// cluster is the claim's Cluster, nil when it names none or it does not exist (a claim
// without a Cluster is served all the same, as upstream's providers do).
func (r *Reconciler) cluster(ctx context.Context, claim *ipamv1.IPAddressClaim) (*clusterv1.Cluster, error) {
	name := clusterName(claim)
	if name == "" {
		return nil, nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: claim.Namespace, Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Cluster %s/%s: %w", claim.Namespace, name, err)
	}
	return cluster, nil
}
