package clusterresourceset

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/patch"
)

// reconcileDelete takes the ClusterResourceSet out of every binding of its namespace (deleting
// a binding left with no entry, as upstream), releases its Secrets and ConfigMaps, then removes
// the finalizer. What it applied stays in the workload clusters.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) error {
	if err := r.removeFromBindings(ctx, s.crs); err != nil {
		return err
	}
	if err := r.releaseResources(ctx, s.crs); err != nil {
		return err
	}
	controllerutil.RemoveFinalizer(s.crs, addonsv1.ClusterResourceSetFinalizer)
	return nil
}

// removeFromBindings lists the bindings live (the cache may not hold one this controller has
// just created) and removes the ClusterResourceSet's entry and owner reference from each.
func (r *Reconciler) removeFromBindings(ctx context.Context, crs *addonsv1.ClusterResourceSet) error {
	list := &addonsv1.ClusterResourceSetBindingList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(crs.Namespace)); err != nil {
		return fmt.Errorf("listing the ClusterResourceSetBindings of namespace %s: %w", crs.Namespace, err)
	}
	for i := range list.Items {
		b := &list.Items[i]
		helper, err := patch.NewHelper(b, r.Client)
		if err != nil {
			return err
		}
		b.OwnerReferences = withoutOwner(b.OwnerReferences, crs)
		b.Spec.Bindings = slices.DeleteFunc(b.Spec.Bindings, func(e addonsv1.ResourceSetBinding) bool {
			return e.ClusterResourceSetName == crs.Name
		})
		if len(b.Spec.Bindings) == 0 {
			// Guarded by the resourceVersion: a binding another ClusterResourceSet has just
			// added itself to is a conflict, and the next pass patches it instead.
			ctrl.LoggerFrom(ctx).Info("Deleting ClusterResourceSetBinding: no ClusterResourceSet is left in it", "ClusterResourceSetBinding", b.Name)
			err := r.Client.Delete(ctx, b, client.Preconditions{UID: &b.UID, ResourceVersion: &b.ResourceVersion})
			if client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("deleting ClusterResourceSetBinding %s: %w", b.Name, err)
			}
			continue
		}
		if err := helper.Patch(ctx, b); err != nil {
			return fmt.Errorf("removing ClusterResourceSet %s from ClusterResourceSetBinding %s: %w", crs.Name, b.Name, err)
		}
	}
	return nil
}

// releaseResources removes the ClusterResourceSet from the owners of its Secrets and ConfigMaps,
// so the garbage collector does not delete them with it (upstream leaves the reference, and so
// deletes a resource no other object owns).
func (r *Reconciler) releaseResources(ctx context.Context, crs *addonsv1.ClusterResourceSet) error {
	for _, ref := range crs.Spec.Resources {
		var obj client.Object = &corev1.ConfigMap{}
		if ref.Kind == string(addonsv1.SecretClusterResourceSetResourceKind) {
			obj = &corev1.Secret{}
		}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: crs.Namespace, Name: ref.Name}, obj)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
		}
		refs := withoutOwner(obj.GetOwnerReferences(), crs)
		if equality.Semantic.DeepEqual(refs, obj.GetOwnerReferences()) {
			continue
		}
		base := obj.DeepCopyObject().(client.Object)
		obj.SetOwnerReferences(refs)
		if err := r.Client.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("removing ClusterResourceSet %s from the owners of %s %s: %w", crs.Name, ref.Kind, ref.Name, err)
		}
	}
	return nil
}
