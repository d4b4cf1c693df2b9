package external

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/patch"
)

// Adopt makes owner an owner of obj and labels obj with the Cluster name, the way
// the contract says the core marks the provider objects it references. Owner
// references for which drop returns true (e.g. the MachineSet that cloned a
// template for a Machine) are removed. When owner is a controller reference and
// obj already has another controller, Adopt refuses with an error naming it. The
// object is patched only when something changed.
func Adopt(ctx context.Context, c client.Client, obj *unstructured.Unstructured, owner metav1.OwnerReference, clusterName string, drop func(metav1.OwnerReference) bool) error {
	helper, err := patch.NewHelper(obj, c)
	if err != nil {
		return err
	}
	isController := owner.Controller != nil && *owner.Controller
	var refs []metav1.OwnerReference
	for _, ref := range obj.GetOwnerReferences() {
		switch {
		case ref.UID == owner.UID:
			continue // re-added below in its current form
		case drop != nil && drop(ref):
			continue
		case isController && ref.Controller != nil && *ref.Controller:
			return fmt.Errorf("%s %s/%s is already controlled by %s %s: it cannot also belong to %s %s",
				obj.GetKind(), obj.GetNamespace(), obj.GetName(), ref.Kind, ref.Name, owner.Kind, owner.Name)
		}
		refs = append(refs, ref)
	}
	obj.SetOwnerReferences(append(refs, owner))
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[clusterv1.ClusterNameLabel] = clusterName
	obj.SetLabels(labels)
	return helper.Patch(ctx, obj)
}
