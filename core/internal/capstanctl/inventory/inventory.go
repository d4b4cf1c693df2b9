// Package inventory reads upstream clusterctl's provider inventory (the Provider objects of
// clusterctl.cluster.x-k8s.io) from a management cluster: what is installed, at which version,
// in which namespace. capstanctl init reads it to refuse a downgrade, upgrade to know what to
// move from, delete to know what a provider name means. It only reads; package install writes
// the entries with the components.
package inventory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterctl"
)

// Entry is one installed provider.
type Entry struct {
	// Label is the manifest label and the entry's name (infrastructure-example).
	Label, Name, Type, Namespace, Version string
}

// Read lists the inventory, sorted by label; a cluster without clusterctl's inventory CRD has
// an empty inventory.
func Read(ctx context.Context, cl client.Reader) ([]Entry, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(clusterctl.APIVersion)
	list.SetKind(clusterctl.InventoryKind + "List")
	if err := cl.List(ctx, list); err != nil {
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading clusterctl's provider inventory: %w", err)
	}
	var out []Entry
	for _, u := range list.Items {
		name, _, _ := unstructured.NestedString(u.Object, "providerName")
		typ, _, _ := unstructured.NestedString(u.Object, "type")
		v, _, _ := unstructured.NestedString(u.Object, "version")
		out = append(out, Entry{Label: u.GetName(), Name: name, Type: typ, Namespace: u.GetNamespace(), Version: v})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Label, b.Label) })
	return out, nil
}

// Find returns the entries labelled label (more than one only when an old clusterctl installed
// several instances).
func Find(entries []Entry, label string) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Label == label {
			out = append(out, e)
		}
	}
	return out
}

// Labels lists the entries' labels, for messages.
func Labels(entries []Entry) string {
	if len(entries) == 0 {
		return "none"
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Label+" "+e.Version)
	}
	return strings.Join(out, ", ")
}
