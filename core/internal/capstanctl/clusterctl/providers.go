package clusterctl

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/components"
)

// Labels clusterctl puts on, and selects, every object of an installed provider.
const (
	// ProviderLabel's value is the provider's manifest label (cluster-api, bootstrap-kubeadm, ...).
	ProviderLabel = "cluster.x-k8s.io/provider"
	// OwnedLabel (value "") marks objects clusterctl manages: move discovers CRDs by it.
	OwnedLabel = "clusterctl.cluster.x-k8s.io"
	// CoreLabel marks clusterctl's own objects; "inventory" on the inventory CRD and entries.
	CoreLabel = "clusterctl.cluster.x-k8s.io/core"
	// CoreLabelInventory is CoreLabel's value on the inventory.
	CoreLabelInventory = "inventory"
)

// Provider types, as clusterctl names them.
const (
	CoreProvider           = "CoreProvider"
	BootstrapProvider      = "BootstrapProvider"
	ControlPlaneProvider   = "ControlPlaneProvider"
	InfrastructureProvider = "InfrastructureProvider"
)

// typePrefixes are the manifest label prefixes of the provider types capstanctl installs; the
// core's label is its bare name (cluster-api).
var typePrefixes = map[string]string{
	CoreProvider:           "",
	BootstrapProvider:      "bootstrap-",
	ControlPlaneProvider:   "control-plane-",
	InfrastructureProvider: "infrastructure-",
}

// Types are the provider types capstanctl installs, in clusterctl's installation order.
var Types = []string{CoreProvider, BootstrapProvider, ControlPlaneProvider, InfrastructureProvider}

// ManifestLabel is clusterctl's manifest label of a provider: its type's prefix and its name
// (infrastructure-docker), the bare name for the core. An unknown type is an error naming the
// known ones.
func ManifestLabel(name, providerType string) (string, error) {
	prefix, ok := typePrefixes[providerType]
	if !ok {
		return "", fmt.Errorf("provider type %q is not one of %v", providerType, Types)
	}
	return prefix + name, nil
}

// Provider is one clusterctl provider Capstan ships.
type Provider struct {
	// Label is clusterctl's manifest label: the inventory entry's name, the value of
	// ProviderLabel and the provider's directory in a local repository.
	Label string
	// Name is what clusterctl's flags take (--bootstrap kubeadm).
	Name string
	// Type is the provider's clusterctl type.
	Type string
	// File is the components file's name in a release.
	File string
	// Module is the capstanctl provider (components.Provider.Name) whose manifest holds it.
	Module string
}

// Providers lists Capstan's clusterctl providers in clusterctl's installation order (core,
// bootstrap, control plane, infrastructure).
var Providers = []Provider{
	{Label: "cluster-api", Name: "cluster-api", Type: CoreProvider, File: "core-components.yaml", Module: "core"},
	{Label: "bootstrap-kubeadm", Name: "kubeadm", Type: BootstrapProvider, File: "bootstrap-components.yaml", Module: "kubeadm"},
	{Label: "control-plane-kubeadm", Name: "kubeadm", Type: ControlPlaneProvider, File: "control-plane-components.yaml", Module: "kubeadm"},
	{Label: "infrastructure-docker", Name: "docker", Type: InfrastructureProvider, File: "infrastructure-components.yaml", Module: "docker"},
}

// ForModules returns the clusterctl providers the capstanctl providers ms install, in order.
func ForModules(ms []components.Provider) []Provider {
	want := map[string]bool{}
	for _, m := range ms {
		want[m.Name] = true
	}
	var out []Provider
	for _, p := range Providers {
		if want[p.Module] {
			out = append(out, p)
		}
	}
	return out
}

// Split returns the objects of p's components file, copied from its module's objects objs:
// those whose ProviderLabel is p.Label, and the module's Namespace (relabelled for p), so that
// each file names its target namespace as clusterctl requires (one Namespace object). Both
// kubeadm providers thus share the namespace capstan-kubeadm-bootstrap-system, as they share a
// manager. An object without ProviderLabel is an error: clusterctl could not delete or upgrade it.
func Split(p Provider, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	namespaces := 0
	for _, o := range objs {
		label, ok := o.GetLabels()[ProviderLabel]
		if !ok {
			return nil, fmt.Errorf("%s %s of provider %s has no %s label", o.GetKind(), o.GetName(), p.Module, ProviderLabel)
		}
		isNamespace := o.GetKind() == "Namespace" && o.GroupVersionKind().Group == ""
		if isNamespace {
			namespaces++
		}
		if label != p.Label && !isNamespace {
			continue
		}
		c := o.DeepCopy()
		labels := c.GetLabels()
		labels[ProviderLabel] = p.Label
		c.SetLabels(labels)
		out = append(out, c)
	}
	if namespaces != 1 {
		return nil, fmt.Errorf("provider %s has %d Namespace objects: clusterctl needs exactly one to name its target namespace", p.Module, namespaces)
	}
	if len(out) == 1 {
		return nil, fmt.Errorf("no object of provider %s is labelled %s=%s", p.Module, ProviderLabel, p.Label)
	}
	return out, nil
}
