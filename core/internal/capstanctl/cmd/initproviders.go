package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/providercomponents"
	"capstan.dev/core/internal/capstanctl/repository"
)

// typeFlags are init's (and delete's) provider flags as clusterctl spells them, by provider type.
var typeFlags = []struct{ flag, providerType string }{
	{"core", clusterctl.CoreProvider},
	{"bootstrap", clusterctl.BootstrapProvider},
	{"control-plane", clusterctl.ControlPlaneProvider},
	{"infrastructure", clusterctl.InfrastructureProvider},
}

// request is one NAME[:VERSION] of a type flag.
type request struct {
	flag, providerType, name, version string
}

// requests parses the type flags' values, in clusterctl's installation order, dropping repeats.
func requests(c *cobra.Command, values map[string]*[]string) ([]request, error) {
	var out []request
	for _, tf := range typeFlags {
		for _, v := range *values[tf.flag] {
			name, ver, _ := strings.Cut(strings.TrimSpace(v), ":")
			if name == "" {
				return nil, fmt.Errorf("--%s %q: write NAME or NAME:VERSION (e.g. example:v0.2.0)", tf.flag, v)
			}
			r := request{flag: tf.flag, providerType: tf.providerType, name: name, version: ver}
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// chosen are the providers the type flags name: releases from repositories, and Capstan's
// embedded modules.
type chosen struct {
	releases []repository.Release
	embedded []components.Provider
}

// choose resolves each request: a provider the configuration file lists is read from its
// repository; else one of Capstan's own is the embedded one; else the request is refused.
func choose(reqs []request, cfg repository.Config) (chosen, error) {
	var ch chosen
	var modules []string
	for _, r := range reqs {
		if e, ok := cfg.Provider(r.name, r.providerType); ok {
			rel, err := readRelease(e, r.version)
			if err != nil {
				return ch, err
			}
			ch.releases = append(ch.releases, rel)
			continue
		}
		i := slices.IndexFunc(clusterctl.Providers, func(p clusterctl.Provider) bool {
			return p.Name == r.name && p.Type == r.providerType
		})
		if i < 0 {
			return ch, unknownProvider(r, cfg)
		}
		if r.version != "" {
			return ch, fmt.Errorf("--%s %s:%s: %s is Capstan's embedded provider, whose version is capstanctl's own (--image-tag chooses its images): "+
				"drop :%s, or list a repository for it in the configuration file", r.flag, r.name, r.version, r.name, r.version)
		}
		modules = append(modules, clusterctl.Providers[i].Module)
	}
	if len(modules) > 0 {
		ps, err := components.Select(modules)
		if err != nil {
			return ch, err
		}
		ch.embedded = ps
	}
	return ch, nil
}

func readRelease(e repository.ProviderEntry, requested string) (repository.Release, error) {
	src, v, err := resolveSource(e, requested)
	if err != nil {
		return repository.Release{}, err
	}
	return src.Read(v, string(contract.V1Beta2))
}

// resolveSource is e's repository and the version directory requested names there ("" for the
// url's own, or latest).
func resolveSource(e repository.ProviderEntry, requested string) (repository.Source, string, error) {
	src, err := repository.NewSource(e)
	if err != nil {
		return repository.Source{}, "", err
	}
	v, err := src.Resolve(requested)
	return src, v, err
}

func unknownProvider(r request, cfg repository.Config) error {
	var known []string
	for _, p := range cfg.Providers {
		if p.Type == r.providerType {
			known = append(known, p.Name)
		}
	}
	for _, p := range clusterctl.Providers {
		if p.Type == r.providerType && !slices.Contains(known, p.Name) {
			known = append(known, p.Name+" (embedded)")
		}
	}
	where := "no configuration file was found (--config, or clusterctl.yaml or capstanctl.yaml in $XDG_CONFIG_HOME/cluster-api or ~/.cluster-api)"
	if cfg.Path != "" {
		where = "the configuration file " + cfg.Path + " does not list it"
	}
	return fmt.Errorf("--%s %s: unknown %s %q: %s; known: %s", r.flag, r.name, r.providerType, r.name, where, strings.Join(known, ", "))
}

// lookup is the variables' sources in clusterctl's order: the environment, then the file.
func lookup(cfg repository.Config) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := os.LookupEnv(name); ok {
			return v, true
		}
		return cfg.Variable(name)
	}
}

// printVariables prints every variable each release's components reference, with its
// default, and whether the environment or the configuration file sets it.
func printVariables(c *cobra.Command, releases []repository.Release, cfg repository.Config) error {
	if len(releases) == 0 {
		return fmt.Errorf("--list-variables lists the variables of providers read from repositories, and none was chosen: " +
			"Capstan's embedded providers have no variables")
	}
	tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', 0)
	for i, rel := range releases {
		vars, err := providercomponents.Variables(rel.Components)
		if err != nil {
			return fmt.Errorf("components of %s %s: %w", rel.Label, rel.Version, err)
		}
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "Variables of %s %s:\n", rel.Label, rel.Version)
		if len(vars) == 0 {
			fmt.Fprintln(tw, "  (none)")
			continue
		}
		fmt.Fprintln(tw, "  NAME\tDEFAULT\tSET")
		for _, v := range vars {
			def := "(required)"
			if v.Default != nil {
				def = fmt.Sprintf("%q", *v.Default)
			}
			set := "no"
			if _, ok := os.LookupEnv(v.Name); ok {
				set = "environment"
			} else if _, ok := cfg.Variable(v.Name); ok {
				set = "configuration file"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.Name, def, set)
		}
	}
	return tw.Flush()
}

// process substitutes and namespaces each release's components.
func process(releases []repository.Release, cfg repository.Config, targetNamespace string) ([]providercomponents.Components, error) {
	var out []providercomponents.Components
	for _, rel := range releases {
		p := providercomponents.Provider{Label: rel.Label, Name: rel.Name, Type: rel.Type, Version: rel.Version}
		comps, err := providercomponents.Process(p, rel.Components, lookup(cfg), targetNamespace)
		if err != nil {
			return nil, err
		}
		out = append(out, comps)
	}
	return out, nil
}

// objectsOf are the components' objects, in order.
func objectsOf(cs []providercomponents.Components) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, c := range cs {
		out = append(out, c.Objects...)
	}
	return out
}

// typeFlagsSet says whether any of --core, --bootstrap, --control-plane, --infrastructure was given.
func typeFlagsSet(c *cobra.Command) bool {
	return slices.ContainsFunc(typeFlags, func(tf struct{ flag, providerType string }) bool {
		return c.Flags().Changed(tf.flag)
	})
}

// runInitProviders installs the providers the type flags name. Everything that can be refused
// is refused before the first write: the files, the variables, the namespaces, then the
// cluster's version, inventory (no downgrade) and cert-manager.
func runInitProviders(c *cobra.Command, g *globalOptions, o *initOptions) error {
	switch {
	case c.Flags().Changed("providers"):
		return fmt.Errorf("--providers chooses among Capstan's embedded providers, and --core/--bootstrap/--control-plane/--infrastructure name providers as clusterctl does: drop one of them")
	case o.dev:
		return fmt.Errorf("--dev runs Capstan's own managers as local processes, and cannot run a provider installed from a repository: drop --dev")
	}
	reqs, err := requests(c, o.typed)
	if err != nil {
		return err
	}
	cfg, err := readConfig(o.config)
	if err != nil {
		return err
	}
	ch, err := choose(reqs, cfg)
	if err != nil {
		return err
	}
	if o.listVariables {
		return printVariables(c, ch.releases, cfg)
	}
	comps, err := process(ch.releases, cfg, o.targetNamespace)
	if err != nil {
		return err
	}
	embedded, err := components.Load(ch.embedded)
	if err != nil {
		return err
	}
	if err := components.SetImageTag(embedded, o.imageTag); err != nil {
		return fmt.Errorf("--image-tag: %w", err)
	}
	if o.hostNet {
		if err := components.SetHostNetwork(embedded); err != nil {
			return err
		}
	}
	cl, host, err := connectForInit(g)
	if err != nil {
		return err
	}
	if err := preflightProviders(c, cl, comps); err != nil {
		return err
	}
	plan, err := withInventory(components.NewPlan(append(embedded, objectsOf(comps)...), components.PlanOptions{}), ch.embedded, o.imageTag)
	if err != nil {
		return err
	}
	var names []string
	for _, p := range ch.embedded {
		names = append(names, p.Name+" (embedded)")
	}
	for _, cs := range comps {
		names = append(names, cs.String()+" into namespace "+cs.Namespace)
		plan.Rest = append(plan.Rest, cs.Inventory)
	}
	out := c.OutOrStdout()
	fmt.Fprintf(out, "Installing providers %s into the management cluster at %s\n", strings.Join(names, ", "), host)
	return applyAndWait(c, cl, o, plan)
}

// readConfig reads --config's file, else clusterctl's default configuration file if one exists.
func readConfig(path string) (repository.Config, error) {
	home, _ := os.UserHomeDir()
	cfg, err := repository.FindConfig(path, repository.DefaultPaths(os.Getenv, home))
	if err != nil {
		return cfg, fmt.Errorf("--config: %w", err)
	}
	return cfg, nil
}
