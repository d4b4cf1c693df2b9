package providercomponents

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/template"
)

// Provider says which provider a components file belongs to.
type Provider struct {
	// Label is the manifest label (infrastructure-example); Name and Type as clusterctl's flags
	// and inventory say them (example, InfrastructureProvider).
	Label, Name, Type, Version string
}

// String names the provider and its version in messages.
func (p Provider) String() string { return p.Label + " " + p.Version }

// Components are a provider's objects, ready to apply.
type Components struct {
	Provider
	// Namespace is the target namespace every namespaced object was moved into.
	Namespace string
	Objects   []*unstructured.Unstructured
	// Inventory is clusterctl's inventory entry for the provider.
	Inventory *unstructured.Unstructured
}

// Variables lists the variables raw needs, sorted, with their inline defaults.
func Variables(raw []byte) ([]template.Variable, error) {
	return template.Variables(raw)
}

// MissingVariablesError names every variable no source gives a value.
type MissingVariablesError struct {
	Provider Provider
	Names    []string
}

func (e *MissingVariablesError) Error() string {
	return fmt.Sprintf("%s needs variables %s, which neither the environment nor the configuration file sets: "+
		"set them (e.g. export %s=...) or add them to the configuration file; 'capstanctl init --list-variables' lists every variable",
		e.Provider, strings.Join(e.Names, ", "), e.Names[0])
}

// Process substitutes raw's variables with lookup (the environment, then the configuration
// file; an inline default when neither has a non-empty value), decodes the objects and moves
// them into targetNamespace ("" keeps the components' own).
func Process(p Provider, raw []byte, lookup func(string) (string, bool), targetNamespace string) (Components, error) {
	out, err := template.Substitute(raw, template.Values{Env: lookup})
	var missing *template.MissingVariablesError
	if errors.As(err, &missing) {
		return Components{}, &MissingVariablesError{Provider: p, Names: missing.Names}
	}
	if err != nil {
		return Components{}, fmt.Errorf("components of %s: %w", p, err)
	}
	objs, err := components.Parse(out)
	if err != nil {
		return Components{}, fmt.Errorf("components of %s (after variable substitution): %w", p, err)
	}
	ns, err := targetOf(p, objs, targetNamespace)
	if err != nil {
		return Components{}, err
	}
	objs = withNamespace(objs, ns)
	if err := moveTo(objs, ns); err != nil {
		return Components{}, fmt.Errorf("components of %s: %w", p, err)
	}
	for _, o := range objs {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterctl.OwnedLabel] = ""
		labels[clusterctl.ProviderLabel] = p.Label
		o.SetLabels(labels)
	}
	return Components{
		Provider:  p,
		Namespace: ns,
		Objects:   objs,
		Inventory: clusterctl.InventoryEntry(p.Label, p.Name, p.Type, ns, p.Version),
	}, nil
}

// targetOf is targetNamespace, else the name of the components' one Namespace object.
func targetOf(p Provider, objs []*unstructured.Unstructured, targetNamespace string) (string, error) {
	var names []string
	for _, o := range objs {
		if isNamespace(o) {
			names = append(names, o.GetName())
		}
	}
	switch {
	case len(names) > 1:
		return "", fmt.Errorf("components of %s hold %d Namespace objects (%s): clusterctl allows at most one, the target namespace",
			p, len(names), strings.Join(names, ", "))
	case targetNamespace != "":
		return targetNamespace, nil
	case len(names) == 0:
		return "", fmt.Errorf("components of %s hold no Namespace object to name the target namespace: choose one with --target-namespace", p)
	}
	return names[0], nil
}

// withNamespace adds a Namespace object when the components have none, as clusterctl does.
func withNamespace(objs []*unstructured.Unstructured, ns string) []*unstructured.Unstructured {
	for _, o := range objs {
		if isNamespace(o) {
			return objs
		}
	}
	n := &unstructured.Unstructured{}
	n.SetAPIVersion("v1")
	n.SetKind("Namespace")
	n.SetName(ns)
	return append([]*unstructured.Unstructured{n}, objs...)
}

func isNamespace(o *unstructured.Unstructured) bool {
	return o.GetKind() == "Namespace" && o.GroupVersionKind().Group == ""
}
