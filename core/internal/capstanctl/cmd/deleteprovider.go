package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/deleteprovider"
	"capstan.dev/core/internal/capstanctl/inventory"
)

// deleteProviderOptions are delete's own flags, which remove providers.
type deleteProviderOptions struct {
	providers []string
	typed     map[string]*[]string
	opts      deleteprovider.Options
}

func addDeleteProviderFlags(c *cobra.Command, o *deleteProviderOptions) {
	f := c.Flags()
	f.StringSliceVar(&o.providers, "provider", nil, "providers to delete by manifest label, as the inventory names them "+
		"(cluster-api, bootstrap-kubeadm, infrastructure-example; repeatable, comma-separated)")
	o.typed = map[string]*[]string{}
	for _, tf := range typeFlags {
		o.typed[tf.flag] = f.StringSlice(tf.flag, nil, fmt.Sprintf("%s providers to delete by name, as clusterctl delete --%s", tf.providerType, tf.flag))
	}
	f.BoolVar(&o.opts.IncludeCRD, "include-crd", false, "also delete the providers' CRDs, refused while objects of them exist")
	f.BoolVar(&o.opts.IncludeNamespace, "include-namespace", false, "also delete the providers' namespaces and everything in them")
}

// labels are the manifest labels the flags name.
func (o *deleteProviderOptions) labels(c *cobra.Command) ([]string, error) {
	out := append([]string(nil), o.providers...)
	reqs, err := requests(c, o.typed)
	if err != nil {
		return nil, err
	}
	for _, r := range reqs {
		if r.version != "" {
			return nil, fmt.Errorf("--%s %s:%s: delete takes a provider's name without a version", r.flag, r.name, r.version)
		}
		l, err := clusterctl.ManifestLabel(r.name, r.providerType)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// runDeleteProviders deletes the named providers; every name and, with --include-crd, every
// CRD's emptiness is checked before the first deletion.
func runDeleteProviders(c *cobra.Command, g *globalOptions, o *deleteProviderOptions) error {
	labels, err := o.labels(c)
	if err != nil {
		return err
	}
	if len(labels) == 0 {
		return fmt.Errorf("name the providers to delete with --provider or --core/--bootstrap/--control-plane/--infrastructure")
	}
	_, cl, dc, err := connectWithDiscovery(g)
	if err != nil {
		return err
	}
	ctx := c.Context()
	installed, err := inventory.Read(ctx, cl)
	if err != nil {
		return err
	}
	type target struct {
		entry inventory.Entry
		objs  []*unstructured.Unstructured
	}
	var targets []target
	for _, l := range labels {
		entries := inventory.Find(installed, strings.TrimSpace(l))
		if len(entries) != 1 {
			return fmt.Errorf("provider %s is not installed: clusterctl's inventory lists %s", l, inventory.Labels(installed))
		}
		objs, err := deleteprovider.Find(ctx, cl, dc, entries[0], o.opts)
		if err != nil {
			return err
		}
		if o.opts.IncludeCRD {
			if err := deleteprovider.CheckNoObjects(ctx, cl, entries[0], objs); err != nil {
				return err
			}
		}
		targets = append(targets, target{entries[0], objs})
	}
	out := c.OutOrStdout()
	for _, t := range targets {
		fmt.Fprintf(out, "Deleting provider %s %s from namespace %s\n", t.entry.Label, t.entry.Version, t.entry.Namespace)
		if err := deleteprovider.Delete(ctx, cl, t.objs, out); err != nil {
			return err
		}
	}
	return nil
}
