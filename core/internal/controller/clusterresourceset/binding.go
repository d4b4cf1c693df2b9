package clusterresourceset

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/patch"
)

// binding is a Cluster's ClusterResourceSetBinding as read, or a new one not created yet.
type binding struct {
	obj    *addonsv1.ClusterResourceSetBinding
	helper *patch.Helper // nil for a binding that does not exist yet
}

// readBinding reads the binding of cluster (named after it), or prepares a new one.
func (r *Reconciler) readBinding(ctx context.Context, cluster *clusterv1.Cluster) (*binding, error) {
	obj := &addonsv1.ClusterResourceSetBinding{}
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(cluster), obj)
	if apierrors.IsNotFound(err) {
		return &binding{obj: &addonsv1.ClusterResourceSetBinding{
			ObjectMeta: metav1.ObjectMeta{Name: cluster.Name, Namespace: cluster.Namespace},
			Spec:       addonsv1.ClusterResourceSetBindingSpec{ClusterName: cluster.Name},
		}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ClusterResourceSetBinding %s: %w", cluster.Name, err)
	}
	helper, err := patch.NewHelper(obj, r.Client)
	if err != nil {
		return nil, err
	}
	return &binding{obj: obj, helper: helper}, nil
}

// entry returns the index of the ClusterResourceSet's entry in spec.bindings, appending an
// empty one when there is none.
func (b *binding) entry(crsName string) int {
	for i, e := range b.obj.Spec.Bindings {
		if e.ClusterResourceSetName == crsName {
			return i
		}
	}
	b.obj.Spec.Bindings = append(b.obj.Spec.Bindings, addonsv1.ResourceSetBinding{ClusterResourceSetName: crsName})
	return len(b.obj.Spec.Bindings) - 1
}

// record sets what happened to one resource in entry i, in place or appended.
func (b *binding) record(i int, rb addonsv1.ResourceBinding) {
	e := &b.obj.Spec.Bindings[i]
	for j := range e.Resources {
		if e.Resources[j].ResourceRef == rb.ResourceRef {
			e.Resources[j] = rb
			return
		}
	}
	e.Resources = append(e.Resources, rb)
}

// saveBinding creates the binding, owned by the ClusterResourceSet, or patches what changed. A
// binding another ClusterResourceSet created meanwhile is a conflict: the reconcile runs again
// on the fresh binding (the objects it applied are applied again, idempotently).
func (r *Reconciler) saveBinding(ctx context.Context, b *binding, crs *addonsv1.ClusterResourceSet) error {
	b.obj.OwnerReferences = withOwner(b.obj.OwnerReferences, crs)
	if b.helper != nil {
		if err := b.helper.Patch(ctx, b.obj); err != nil {
			return fmt.Errorf("recording in ClusterResourceSetBinding %s: %w", b.obj.Name, err)
		}
		return nil
	}
	if err := r.Client.Create(ctx, b.obj); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return apierrors.NewConflict(addonsv1.GroupVersion.WithResource("clusterresourcesetbindings").GroupResource(), b.obj.Name, err)
		}
		return fmt.Errorf("creating ClusterResourceSetBinding %s: %w", b.obj.Name, err)
	}
	return nil
}
