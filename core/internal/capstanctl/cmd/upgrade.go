package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/capstanctl/install"
	"capstan.dev/core/internal/capstanctl/inventory"
	"capstan.dev/core/internal/capstanctl/repository"
	"capstan.dev/core/internal/capstanctl/upgrade"
)

// upgradeOptions are the flags of upgrade plan and apply.
type upgradeOptions struct {
	config   string
	contract string
	typed    map[string]*[]string
	interval time.Duration
	wait     bool
	timeout  time.Duration
}

func newUpgradeCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("upgrade", "Upgrade providers installed from clusterctl repositories, as clusterctl upgrade")
	parent.AddCommand(newUpgradePlanCommand(g), newUpgradeApplyCommand(g))
	return parent
}

func addConfigFlag(c *cobra.Command, o *upgradeOptions) {
	c.Flags().StringVar(&o.config, "config", "", "clusterctl configuration file listing the providers' repositories and variables "+
		"(default: capstanctl.yaml or clusterctl.yaml in $XDG_CONFIG_HOME/cluster-api, then in ~/.cluster-api)")
}

func newUpgradePlanCommand(g *globalOptions) *cobra.Command {
	o := &upgradeOptions{}
	c := &cobra.Command{
		Use:   "plan",
		Short: "List the installed providers and the newest version of their contract each repository holds",
		Long: `Read clusterctl's provider inventory and, for each provider the configuration file lists, the
versions its local repository holds; print, for the contract Capstan's core implements (v1beta2),
each provider's installed version and the newest version of the same contract (each version's
metadata.yaml says its contract), or "Already up to date". Capstan's embedded providers are upgraded
by a newer capstanctl's init and are shown as such; a provider whose repository is missing or
unreadable is shown with the reason. Nothing is written.`,
		Example: `  capstanctl upgrade plan --config clusterctl.yaml`,
		Args:    noArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runUpgradePlan(c, g, o) },
	}
	addConfigFlag(c, o)
	return c
}

func runUpgradePlan(c *cobra.Command, g *globalOptions, o *upgradeOptions) error {
	cfg, err := readConfig(o.config)
	if err != nil {
		return err
	}
	cl, err := g.cluster.New()
	if err != nil {
		return err
	}
	entries, err := inventory.Read(c.Context(), cl)
	if err != nil {
		return err
	}
	out := c.OutOrStdout()
	if len(entries) == 0 {
		fmt.Fprintln(out, "No providers are installed: clusterctl's inventory is empty; install them with capstanctl init")
		return nil
	}
	core := string(contract.V1Beta2)
	rows := upgrade.Plan(entries, cfg, core)
	fmt.Fprintf(out, "Latest release available for the %s API Version of Cluster API (contract):\n\n", core)
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tNAMESPACE\tTYPE\tCURRENT VERSION\tNEXT VERSION")
	upgradable := false
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Namespace, r.Type, r.Version, r.NextColumn())
		upgradable = upgradable || r.Next != ""
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !upgradable {
		fmt.Fprintln(out, "\nYou are already up to date!")
		return nil
	}
	fmt.Fprintf(out, "\nYou can now apply the upgrade by executing the following command:\n\ncapstanctl upgrade apply --contract %s\n", core)
	return nil
}

func newUpgradeApplyCommand(g *globalOptions) *cobra.Command {
	o := &upgradeOptions{typed: map[string]*[]string{}}
	c := &cobra.Command{
		Use:   "apply",
		Short: "Upgrade providers installed from clusterctl repositories to newer versions",
		Long: `Upgrade installed providers as clusterctl upgrade apply does: --contract v1beta2 moves every
provider the configuration file lists to the newest version of that contract in its repository;
--core, --bootstrap, --control-plane and --infrastructure (repeatable) move one provider each to
the version they name, as [NAMESPACE/]NAME:VERSION (clusterctl's capi-example-system/example:v0.2.0,
or example:v0.2.0 for the namespace the inventory records).

Everything is checked before the first write, and any refusal changes nothing: the provider is
installed and not one of Capstan's embedded ones (a newer capstanctl's init upgrades those), the
version is in the repository with a metadata.yaml declaring contract v1beta2, it is not older
than the installed one, every variable of its components is set (environment, then the
configuration file), cert-manager is there if they need it, and no CRD stops serving a version
its objects are stored at.

Then, per provider: the installed version's components are deleted except its CRDs, the objects
of those CRDs and its namespace; the new components are server-side applied (field manager
capstanctl; CRDs updated in place); objects stored at a version other than a CRD's new storage
version are rewritten unchanged and status.storedVersions set to the storage version; and the
inventory entry's version is updated last. A provider already at the version is left alone, so
running apply again changes nothing.

With --wait, apply then waits, as init --wait does, until every upgraded provider's Deployments
have rolled out and are available and, on timeout, names each one still waiting with its
conditions and its pods' waiting reasons.`,
		Example: `  capstanctl upgrade apply --config clusterctl.yaml --contract v1beta2
  capstanctl upgrade apply --config clusterctl.yaml --infrastructure capi-example-system/example:v0.2.0
  capstanctl upgrade apply --config clusterctl.yaml --infrastructure example:v0.2.0 --wait --timeout 10m`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runUpgradeApply(c, g, o) },
	}
	f := c.Flags()
	addConfigFlag(c, o)
	f.StringVar(&o.contract, "contract", "", "move every provider with a repository to the newest version of this contract (v1beta2)")
	for _, tf := range typeFlags {
		o.typed[tf.flag] = f.StringSlice(tf.flag, nil, fmt.Sprintf("%s providers to upgrade, as [NAMESPACE/]NAME:VERSION (repeatable, comma-separated)", tf.providerType))
	}
	f.BoolVar(&o.wait, "wait", false, "wait until the upgraded providers' Deployments are available")
	f.DurationVar(&o.timeout, "timeout", defaultWaitTimeout, "how long --wait waits")
	f.DurationVar(&o.interval, "poll-interval", time.Second, "how often waits re-read the cluster")
	_ = f.MarkHidden("poll-interval")
	return c
}

// applyTargets resolves the flags into targets, reading files and the inventory only.
func (o *upgradeOptions) applyTargets(c *cobra.Command, entries []inventory.Entry, cfg repository.Config) ([]upgrade.Target, error) {
	core := string(contract.V1Beta2)
	var reqs []upgrade.Request
	for _, tf := range typeFlags {
		for _, v := range *o.typed[tf.flag] {
			r, err := upgrade.ParseRequest(tf.flag, tf.providerType, v)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, r)
		}
	}
	switch {
	case o.contract != "" && len(reqs) > 0:
		return nil, fmt.Errorf("--contract moves every provider, and --core/--bootstrap/--control-plane/--infrastructure name versions: drop one of them, as clusterctl requires")
	case o.contract == "" && len(reqs) == 0:
		return nil, fmt.Errorf("say what to upgrade: --contract %s, or providers with --core/--bootstrap/--control-plane/--infrastructure [NAMESPACE/]NAME:VERSION", core)
	case len(reqs) > 0:
		return upgrade.ForRequests(entries, cfg, reqs, core)
	}
	if err := upgrade.CheckContract(o.contract, core); err != nil {
		return nil, err
	}
	targets, embedded, err := upgrade.ForContract(entries, cfg, core)
	if len(embedded) > 0 && err == nil {
		fmt.Fprintf(c.OutOrStdout(), "Skipping Capstan's embedded providers %s: a newer capstanctl's init upgrades them\n", strings.Join(embedded, ", "))
	}
	return targets, err
}

// runUpgradeApply prepares every target (all checks) before upgrading the first.
func runUpgradeApply(c *cobra.Command, g *globalOptions, o *upgradeOptions) error {
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.timeout)
	}
	cfg, err := readConfig(o.config)
	if err != nil {
		return err
	}
	_, cl, dc, err := connectWithDiscovery(g)
	if err != nil {
		return err
	}
	ctx, out := c.Context(), c.OutOrStdout()
	entries, err := inventory.Read(ctx, cl)
	if err != nil {
		return err
	}
	targets, err := o.applyTargets(c, entries, cfg)
	if err != nil {
		return err
	}
	u := &upgrade.Upgrader{Client: cl, Discovery: dc, Out: out, PollInterval: o.interval}
	var prepared []upgrade.Prepared
	for _, t := range targets {
		if t.UpToDate() {
			fmt.Fprintf(out, "Provider %s is already at %s: nothing to do\n", t.Entry.Label, t.Entry.Version)
			continue
		}
		p, err := u.Prepare(ctx, t, lookup(cfg))
		if err != nil {
			return err
		}
		prepared = append(prepared, p)
	}
	var applied []*unstructured.Unstructured
	for _, p := range prepared {
		if err := u.Apply(ctx, p); err != nil {
			return err
		}
		applied = append(applied, p.Components.Objects...)
	}
	return waitUpgraded(c, cl, o, applied)
}

// waitUpgraded, with --wait, waits for the Deployments among the applied objects; without, it
// says how to follow them. A rerun finds the providers at their new version and does not wait
// again, so a timeout says that the upgrade itself is done.
func waitUpgraded(c *cobra.Command, cl client.Client, o *upgradeOptions, applied []*unstructured.Unstructured) error {
	if len(applied) == 0 {
		return nil
	}
	out := c.OutOrStdout()
	if !o.wait {
		fmt.Fprintln(out, "Managers deployed; follow them with 'kubectl get deployments -A -l cluster.x-k8s.io/provider'")
		return nil
	}
	a := &install.Applier{Client: cl, Out: out, PollInterval: o.interval}
	if err := waitManagers(c, a, applied, o.timeout); err != nil {
		return fmt.Errorf("the upgrade is applied and recorded in the inventory, but %w", err)
	}
	return nil
}
