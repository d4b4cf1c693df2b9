package external

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/owner"
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

// OwnTemplates makes cluster an owner of the templates refs name in namespace, as upstream's
// MachineDeployment and MachineSet controllers do for the templates their Machines are cloned
// from: the garbage collector then deletes a template written beside its Cluster, without a
// topology, when the Cluster goes. Objects whose kind is not a template (a Machine's own
// InfraMachine is adopted by the Machine) and templates that already have the owner are left
// alone, so a steady state writes nothing. A missing template or CRD is not an error here:
// whoever clones from the template reports it.
func OwnTemplates(ctx context.Context, c client.Client, cluster *clusterv1.Cluster, namespace string, refs ...clusterv1.ContractVersionedObjectReference) error {
	for _, ref := range refs {
		if err := ownTemplate(ctx, c, cluster, namespace, ref); err != nil {
			return fmt.Errorf("making Cluster %s an owner of %s %s: %w", cluster.Name, ref.Kind, ref.Name, err)
		}
	}
	return nil
}

func ownTemplate(ctx context.Context, c client.Client, cluster *clusterv1.Cluster, namespace string, ref clusterv1.ContractVersionedObjectReference) error {
	if !ref.IsDefined() || !strings.HasSuffix(ref.Kind, clusterv1.TemplateSuffix) {
		return nil
	}
	tmpl, _, err := Get(ctx, c, ref, namespace)
	switch {
	case apierrors.IsNotFound(err), errors.Is(err, contract.ErrCRDNotFound):
		return nil
	case err != nil:
		return err
	case owner.HasUID(tmpl, cluster.UID):
		return nil
	}
	helper, err := patch.NewHelper(tmpl, c)
	if err != nil {
		return err
	}
	owner.EnsureClusterOwner(tmpl, cluster)
	return helper.Patch(ctx, tmpl)
}
