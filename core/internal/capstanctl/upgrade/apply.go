package upgrade

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/deleteprovider"
	"capstan.dev/core/internal/capstanctl/install"
	"capstan.dev/core/internal/capstanctl/providercomponents"
)

// Upgrader upgrades providers on one management cluster.
type Upgrader struct {
	Client    client.Client
	Discovery discovery.DiscoveryInterface
	// Out receives a line per deleted, applied and migrated object; nil discards them.
	Out io.Writer
	// PollInterval is how often waits re-read the cluster; a second when zero.
	PollInterval time.Duration
	// ConversionWait bounds how long the stored-version migration waits for the new release's
	// conversion webhook to answer (its manager starting, issuing its certificate and writing
	// its CA into the CRDs); five minutes when zero.
	ConversionWait time.Duration
}

func (u *Upgrader) out() io.Writer {
	if u.Out == nil {
		return io.Discard
	}
	return u.Out
}

// Prepared is a target checked against the cluster, ready to apply.
type Prepared struct {
	Target
	// Components are the new release's objects, in the installed provider's namespace.
	Components providercomponents.Components
	// Old are the installed objects the upgrade deletes, in deletion order.
	Old []*unstructured.Unstructured
}

// Prepare processes t's components into the installed namespace with lookup's variables and
// checks, reading only: cert-manager when they need it, and that every object stored at a
// version the new CRDs no longer store can be migrated. It finds the old objects to delete.
func (u *Upgrader) Prepare(ctx context.Context, t Target, lookup func(string) (string, bool)) (Prepared, error) {
	rel := t.Release
	p := providercomponents.Provider{Label: rel.Label, Name: rel.Name, Type: rel.Type, Version: rel.Version}
	comps, err := providercomponents.Process(p, rel.Components, lookup, t.Entry.Namespace)
	if err != nil {
		return Prepared{}, err
	}
	if err := install.CheckCertManager(ctx, u.Client, comps.String(), providercomponents.CertManagerUsers(comps.Objects)); err != nil {
		return Prepared{}, err
	}
	if err := u.checkStoredVersions(ctx, comps); err != nil {
		return Prepared{}, err
	}
	found, err := deleteprovider.Find(ctx, u.Client, u.Discovery, t.Entry, deleteprovider.Options{IncludeCRD: true})
	if err != nil {
		return Prepared{}, err
	}
	return Prepared{Target: t, Components: comps, Old: oldComponents(found)}, nil
}

// oldComponents drops from a provider's labelled objects what an upgrade keeps: its CRDs, the
// objects of those CRDs (users' objects, even when labelled as the provider's), and the
// inventory entry, which is updated last instead.
func oldComponents(found []*unstructured.Unstructured) []*unstructured.Unstructured {
	crdKinds := map[schema.GroupKind]bool{}
	for _, o := range found {
		if o.GetKind() == "CustomResourceDefinition" {
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			crdKinds[schema.GroupKind{Group: group, Kind: kind}] = true
		}
	}
	var out []*unstructured.Unstructured
	for _, o := range found {
		gk := o.GroupVersionKind().GroupKind()
		switch {
		case o.GetKind() == "CustomResourceDefinition", crdKinds[gk]:
		case gk.Kind == clusterctl.InventoryKind && gk.Group == "clusterctl.cluster.x-k8s.io":
		default:
			out = append(out, o)
		}
	}
	return out
}

// Apply upgrades one prepared provider: deletes the old components, applies the new ones
// (the CRDs updated in place), migrates stored objects, and updates the inventory entry last.
func (u *Upgrader) Apply(ctx context.Context, p Prepared) error {
	out := u.out()
	fmt.Fprintf(out, "Upgrading provider %s from %s to %s in namespace %s\n", p.Entry.Label, p.Entry.Version, p.Release.Version, p.Entry.Namespace)
	if err := deleteprovider.Delete(ctx, u.Client, p.Old, out); err != nil {
		return fmt.Errorf("deleting the components of %s %s: %w", p.Entry.Label, p.Entry.Version, err)
	}
	a := &install.Applier{Client: u.Client, Out: out, PollInterval: u.PollInterval}
	plan := components.NewPlan(p.Components.Objects, components.PlanOptions{})
	if _, err := a.Apply(ctx, plan); err != nil {
		return err
	}
	if err := u.migrateStoredVersions(ctx, plan.CRDs); err != nil {
		return err
	}
	_, err := a.Apply(ctx, components.Plan{Rest: []*unstructured.Unstructured{p.Components.Inventory}})
	return err
}
