package clusterresourceset

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
)

// readResources reads every resource of spec.resources live, makes the ClusterResourceSet one of
// its owners and parses its manifests. Problems a user must fix are reported and the resource is
// skipped; an error of the management cluster's API ends the reconcile.
func (r *Reconciler) readResources(ctx context.Context, s *scope) error {
	for _, ref := range s.crs.Spec.Resources {
		obj, data, err := r.readResource(ctx, s, ref)
		if err != nil {
			s.reportError(err)
			return err
		}
		res := resource{ref: ref}
		if obj != nil {
			if err := r.ensureOwnedBy(ctx, obj, ref.Kind, s.crs); err != nil {
				s.reportError(err)
				return err
			}
			m, err := parseManifests(data)
			if err == nil {
				err = nameGenerated(m.objects, s.crs.Name+"/"+ref.Kind+"/"+ref.Name)
			}
			if err != nil {
				m = nil
				s.report(addonsv1.ClusterResourceSetResourcesNotAppliedReason,
					fmt.Sprintf("%s %s: %v: fix its data", ref.Kind, ref.Name, err))
			}
			res.manifests = m
		}
		s.resources = append(s.resources, res)
	}
	return nil
}

// readResource reads one Secret or ConfigMap by name. It returns a nil object, and reports why,
// when the resource is missing or is a Secret of the wrong type.
func (r *Reconciler) readResource(ctx context.Context, s *scope, ref addonsv1.ResourceRef) (client.Object, map[string][]byte, error) {
	key := client.ObjectKey{Namespace: s.crs.Namespace, Name: ref.Name}
	var obj client.Object
	switch addonsv1.ClusterResourceSetResourceKind(ref.Kind) {
	case addonsv1.SecretClusterResourceSetResourceKind:
		obj = &corev1.Secret{}
	case addonsv1.ConfigMapClusterResourceSetResourceKind:
		obj = &corev1.ConfigMap{}
	default: // admission allows only the two kinds
		return nil, nil, fmt.Errorf("spec.resources: kind %q of %s is neither Secret nor ConfigMap", ref.Kind, ref.Name)
	}
	if err := r.APIReader.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			hint := ""
			if _, secret := obj.(*corev1.Secret); secret {
				hint = " of type " + string(addonsv1.ClusterResourceSetSecretType)
			}
			s.report(addonsv1.ClusterResourceSetResourceNotFoundReason, fmt.Sprintf(
				"%s %s not found in namespace %s: create it%s (it is applied as soon as it exists)", ref.Kind, ref.Name, key.Namespace, hint))
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("reading %s %s: %w", ref.Kind, key, err)
	}
	switch o := obj.(type) {
	case *corev1.Secret:
		if o.Type != addonsv1.ClusterResourceSetSecretType {
			s.report(addonsv1.ClusterResourceSetResourcesAppliedWrongSecretTypeReason, fmt.Sprintf(
				"Secret %s has type %s: only Secrets of type %s are applied; re-create it with that type", ref.Name, typeOf(o), addonsv1.ClusterResourceSetSecretType))
			return nil, nil, nil
		}
		return o, o.Data, nil
	case *corev1.ConfigMap:
		data := make(map[string][]byte, len(o.Data))
		for k, v := range o.Data {
			data[k] = []byte(v)
		}
		return o, data, nil
	}
	return nil, nil, nil
}

func typeOf(s *corev1.Secret) string {
	if s.Type == "" {
		return string(corev1.SecretTypeOpaque)
	}
	return string(s.Type)
}

// ensureOwnedBy adds the ClusterResourceSet to the resource's owners (not as controller), as
// upstream does, so `capstanctl move` takes the resource along. The patch is guarded by the
// resourceVersion: ownerReferences are replaced whole, and a concurrent owner must not be lost.
func (r *Reconciler) ensureOwnedBy(ctx context.Context, obj client.Object, kind string, crs *addonsv1.ClusterResourceSet) error {
	refs := withOwner(obj.GetOwnerReferences(), crs)
	if equality.Semantic.DeepEqual(refs, obj.GetOwnerReferences()) {
		return nil
	}
	base := obj.DeepCopyObject().(client.Object)
	obj.SetOwnerReferences(refs)
	if err := r.Client.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("adding ClusterResourceSet %s to the owners of %s %s: %w", crs.Name, kind, obj.GetName(), err)
	}
	return nil
}

// ownerRef is the reference a ClusterResourceSet puts on its resources and bindings; it does
// not block the owner's deletion, so deleting the ClusterResourceSet never waits on them.
func ownerRef(crs *addonsv1.ClusterResourceSet) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: addonsv1.GroupVersion.String(), Kind: "ClusterResourceSet", Name: crs.Name, UID: crs.UID}
}

// withOwner returns refs with a reference to the ClusterResourceSet: unchanged when it has one,
// the stale one replaced in place (same kind and name, another UID), else appended; the order
// of the others is kept, so reconciling again writes nothing.
func withOwner(refs []metav1.OwnerReference, crs *addonsv1.ClusterResourceSet) []metav1.OwnerReference {
	out := append([]metav1.OwnerReference(nil), refs...)
	for i, ref := range out {
		if ref.UID == crs.UID || isRefTo(ref, crs) {
			out[i] = ownerRef(crs)
			return out
		}
	}
	return append(out, ownerRef(crs))
}

// isRefTo reports whether ref names the ClusterResourceSet by kind and name.
func isRefTo(ref metav1.OwnerReference, crs *addonsv1.ClusterResourceSet) bool {
	return ref.Kind == "ClusterResourceSet" && ref.Name == crs.Name && groupOf(ref.APIVersion) == addonsv1.GroupVersion.Group
}

// withoutOwner returns refs without the references to the ClusterResourceSet (by UID, or by kind
// and name for a reference written before a move gave it a new UID).
func withoutOwner(refs []metav1.OwnerReference, crs *addonsv1.ClusterResourceSet) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, ref := range refs {
		if ref.UID == crs.UID || isRefTo(ref, crs) {
			continue
		}
		out = append(out, ref)
	}
	return out
}

func groupOf(apiVersion string) string {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return ""
	}
	return gv.Group
}
