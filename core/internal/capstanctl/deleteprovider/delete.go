// Package deleteprovider removes an installed provider for `capstanctl delete --provider`, as
// clusterctl delete does: it finds the provider's objects by clusterctl's labels
// (cluster.x-k8s.io/provider=<label> and clusterctl.cluster.x-k8s.io) in the provider's
// namespace (the inventory says which) and cluster-wide, keeps its CRDs unless asked (deleting
// a CRD deletes every object of its kind) and its Namespace unless asked, and deletes the rest,
// its inventory entry among them. With the CRDs it first refuses while objects of those CRDs
// exist, naming kind and count, before deleting anything.
//
// Unlike clusterctl, it deletes every labelled cluster-scoped object (ClusterRoles,
// ClusterRoleBindings) rather than only those named after the namespace: clusterctl's name
// check is left from multi-instance installations, which it no longer supports, and leaves
// the provider's RBAC behind.
package deleteprovider

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/inventory"
)

// Options say what else to delete.
type Options struct {
	IncludeCRD, IncludeNamespace bool
}

// clusterctlGroup is the API group of clusterctl's inventory.
const clusterctlGroup = "clusterctl.cluster.x-k8s.io"

// Find lists the provider's objects that delete removes, in deletion order (the namespaced
// objects, then cluster-scoped ones, the CRDs, the Namespace, and the inventory entry last). Namespaced objects of
// a Namespace being deleted are left to the Namespace's deletion, as clusterctl does.
func Find(ctx context.Context, cl client.Client, dc discovery.DiscoveryInterface, p inventory.Entry, o Options) ([]*unstructured.Unstructured, error) {
	lists, err := discovery.ServerPreferredResources(dc)
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("listing the management cluster's resource types: %w", err)
	}
	selector := client.MatchingLabels{clusterctl.ProviderLabel: p.Label, clusterctl.OwnedLabel: ""}
	var found []*unstructured.Unstructured
	for _, l := range lists {
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue
			}
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(l.GroupVersion)
			list.SetKind(r.Kind + "List")
			opts := []client.ListOption{selector}
			if r.Namespaced {
				opts = append(opts, client.InNamespace(p.Namespace))
			}
			if err := cl.List(ctx, list, opts...); err != nil {
				if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
					continue
				}
				return nil, fmt.Errorf("listing %s of provider %s: %w", r.Name, p.Label, err)
			}
			for i := range list.Items {
				found = append(found, &list.Items[i])
			}
		}
	}
	return selectObjects(found, p, o), nil
}

// selectObjects drops what o keeps and orders the rest for deletion.
func selectObjects(found []*unstructured.Unstructured, p inventory.Entry, o Options) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, u := range found {
		isCRD := u.GetKind() == "CustomResourceDefinition"
		isNamespace := u.GetKind() == "Namespace" && u.GroupVersionKind().Group == ""
		switch {
		case isCRD && !o.IncludeCRD:
		case isNamespace && (!o.IncludeNamespace || u.GetName() != p.Namespace):
		case o.IncludeNamespace && u.GetNamespace() == p.Namespace:
		default:
			out = append(out, u)
		}
	}
	rank := func(u *unstructured.Unstructured) int {
		switch {
		case u.GetKind() == clusterctl.InventoryKind && u.GroupVersionKind().Group == clusterctlGroup:
			return 4 // last: a deletion that fails midway leaves the provider listed, to be run again
		case u.GetNamespace() != "":
			return 0
		case u.GetKind() == "CustomResourceDefinition":
			return 2
		case u.GetKind() == "Namespace":
			return 3
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b *unstructured.Unstructured) int { return rank(a) - rank(b) })
	return out
}

// CheckNoObjects refuses deleting CRDs while objects of them exist anywhere, naming each kind
// and its count: deleting the CRD would delete them too, which a user must choose first.
func CheckNoObjects(ctx context.Context, cl client.Client, p inventory.Entry, objs []*unstructured.Unstructured) error {
	var busy []string
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd, err := components.CRD(u)
		if err != nil {
			return err
		}
		storage := components.StorageVersion(crd)
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: crd.Spec.Group, Version: storage, Kind: crd.Spec.Names.ListKind})
		if err := cl.List(ctx, list); err != nil {
			return fmt.Errorf("counting the %s objects of provider %s: %w", crd.Spec.Names.Kind, p.Label, err)
		}
		if n := len(list.Items); n > 0 {
			busy = append(busy, fmt.Sprintf("%d %s", n, crd.Spec.Names.Kind))
		}
	}
	if len(busy) > 0 {
		return fmt.Errorf("provider %s still has objects of its CRDs: %s; --include-crd would delete them with the CRDs: "+
			"delete them first (e.g. the Clusters that use them), or drop --include-crd to keep the CRDs", p.Label, strings.Join(busy, ", "))
	}
	return nil
}

// Delete deletes objs in order, printing a line per object; one already gone is fine.
func Delete(ctx context.Context, cl client.Client, objs []*unstructured.Unstructured, out io.Writer) error {
	for _, u := range objs {
		what := u.GetKind() + " " + u.GetName()
		if u.GetNamespace() != "" {
			what = u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
		}
		err := cl.Delete(ctx, u, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s: %w", what, err)
		}
		fmt.Fprintf(out, "%s deleted\n", what)
	}
	return nil
}
