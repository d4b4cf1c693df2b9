package clusterctl

import (
	_ "embed"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"capstan.dev/core/internal/capstanctl/components"
)

//go:embed inventory-crd.yaml
var inventoryCRD []byte

// InventoryKind is the kind of an inventory entry (APIVersion's group).
const InventoryKind = "Provider"

// InventoryCRD returns clusterctl's inventory CRD, labelled CoreLabel=inventory as clusterctl
// labels it, and without OwnedLabel, so that move leaves inventory entries alone.
func InventoryCRD() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(inventoryCRD, &u.Object); err != nil {
		return nil, fmt.Errorf("the embedded inventory CRD: %w", err) // a build defect
	}
	return u, nil
}

// Inventory returns the inventory entries clusterctl would write for the capstanctl providers
// ms at version v: one per clusterctl provider, in its module's namespace, labelled as clusterctl
// labels them (its two common labels and CoreLabel=inventory).
func Inventory(ms []components.Provider, v string) ([]*unstructured.Unstructured, error) {
	if _, err := ParseVersion(v); err != nil {
		return nil, err
	}
	namespaces := map[string]string{}
	for _, m := range ms {
		namespaces[m.Name] = m.Namespace
	}
	var out []*unstructured.Unstructured
	for _, p := range ForModules(ms) {
		out = append(out, InventoryEntry(p.Label, p.Name, p.Type, namespaces[p.Module], v))
	}
	return out, nil
}

// InventoryEntry is the inventory entry clusterctl writes for a provider installed into
// namespace at version v: named by its manifest label, labelled with clusterctl's two common
// labels and CoreLabel=inventory.
func InventoryEntry(label, name, providerType, namespace, v string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"providerName": name,
		"type":         providerType,
		"version":      v,
	}}
	u.SetAPIVersion(APIVersion)
	u.SetKind(InventoryKind)
	u.SetName(label)
	u.SetNamespace(namespace)
	u.SetLabels(map[string]string{OwnedLabel: "", ProviderLabel: label, CoreLabel: CoreLabelInventory})
	return u
}
