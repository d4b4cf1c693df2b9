package cmd

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/install"
	"capstan.dev/core/internal/capstanctl/localmanagers"
)

// initOptions are init's flags.
type initOptions struct {
	providers []string
	imageTag  string
	wait      bool
	timeout   time.Duration
	dev       bool
	binDir    string
	stateDir  string
	logDir    string
	args      []string
	tokenTTL  time.Duration
	stop      bool
	hostNet   bool
	interval  time.Duration
	// typed holds --core, --bootstrap, --control-plane and --infrastructure by flag name.
	typed           map[string]*[]string
	config          string
	targetNamespace string
	listVariables   bool
}

func newInitCommand(g *globalOptions) *cobra.Command {
	o := &initOptions{typed: map[string]*[]string{}}
	c := &cobra.Command{
		Use:   "init",
		Short: "Install the providers' CRDs, RBAC, admission policies and managers into a management cluster",
		Long: `Install Capstan's providers into the management cluster: for each provider its namespace, CRDs
(waiting until they are Established), ServiceAccount, ClusterRole and leader-election Role with
their bindings, the MutatingAdmissionPolicies that default its objects and the
ValidatingAdmissionPolicies that apply its v1beta2 rules to v1beta1 writes (waiting until they are
in effect), and its manager Deployment, exactly as 'kustomize build <provider>/config/default'
renders them, and upstream clusterctl's provider inventory (its Provider CRD and one entry per
clusterctl provider: cluster-api, bootstrap-kubeadm, control-plane-kubeadm, infrastructure-docker),
so that clusterctl describe, move and upgrade recognise the installation. The management cluster must run Kubernetes 1.36 or newer, which serves those
policies; init refuses an older one. Objects are server-side applied with field manager capstanctl, so running init
again changes nothing, and after an upgrade of capstanctl updates what changed.

The Deployments run the images 'make images' builds (capstan/<provider>-manager:<tag>); no
registry is used, so the management cluster's nodes must already have them. With --wait, init
waits until every manager is available and, on timeout, says why (conditions, pods' waiting
reasons).

With --host-network the manager pods share their node's network (each provider on its own
ports): needed when the management cluster is itself a Capstan docker cluster, whose
workload endpoints (127.0.0.1:<port>) reach the load balancers only from a node's own
network namespace.

With --dev, init installs the namespaces, CRDs and RBAC only and runs the manager binaries
('make managers' builds them into bin/) as local background processes against the cluster,
each on its own loopback ports, with PID files in --state-dir and logs in --log-dir, and
waits until each answers /readyz. Each runs as its provider's ServiceAccount, with a token
init requests (valid for --token-ttl, renewed by a later init once half of it has passed),
so it has exactly the permissions its Deployment would have. Running it again keeps
managers that run the same binary with the same flags and token; others are restarted.
--stop stops the managers a previous --dev run started (by their recorded PIDs).

Other providers install as with clusterctl: --core, --bootstrap, --control-plane and
--infrastructure (each repeatable, NAME or NAME:VERSION) name providers that the configuration
file lists (--config; default capstanctl.yaml or clusterctl.yaml in $XDG_CONFIG_HOME/cluster-api,
then in ~/.cluster-api) as providers: [{name, url, type}], each url a clusterctl local repository
({basepath}/{provider-label}/{version|latest}/{components file}, absolute path or file://). init
reads the version's metadata.yaml and refuses a release whose series does not declare contract
v1beta2, substitutes the components' variables (${VAR}, ${VAR:=default}, ${VAR:-default}; from the
environment, then the configuration file's top-level keys), refusing every missing one at once
(--list-variables lists them and installs nothing), moves them into --target-namespace if given,
and applies them with clusterctl's labels and inventory entry. It refuses, before writing
anything, a version older than the installed one and components that need cert-manager when
the cluster has none (Capstan does not need it; install it yourself, as capstanctl does not reach
the network). A name the file does not list means Capstan's embedded provider (cluster-api,
kubeadm, docker), installed as above. Upgrade them with 'capstanctl upgrade plan' and 'capstanctl
upgrade apply'; remove them with 'capstanctl delete --provider'.`,
		Example: `  capstanctl init --kubeconfig mgmt.kubeconfig --wait
  capstanctl init --providers core,kubeadm --image-tag v0.1.0
  capstanctl init --kubeconfig .capstan/mgmt/kubeconfig --dev --manager-args kubeadm=--bootstrap-token-ttl=1m
  capstanctl init --dev --stop
  capstanctl init --config clusterctl.yaml --infrastructure example:v0.2.0 --list-variables
  capstanctl init --config clusterctl.yaml --infrastructure example --target-namespace example-system`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runInit(c, g, o) },
	}
	f := c.Flags()
	f.StringSliceVar(&o.providers, "providers", components.Names(),
		"providers to install, comma-separated: "+strings.Join(components.Names(), ","))
	f.StringVar(&o.imageTag, "image-tag", "dev", "tag of the capstan/<provider>-manager images the Deployments run; "+
		"also the version clusterctl's provider inventory records when it is a release version (v0.1.0), else "+devInventoryVersion)
	f.BoolVar(&o.wait, "wait", false, "wait until every manager Deployment is available")
	f.DurationVar(&o.timeout, "timeout", defaultWaitTimeout, "how long --wait (or --dev's readiness wait) waits")
	f.BoolVar(&o.dev, "dev", false, "run the manager binaries as local processes instead of Deployments")
	f.StringVar(&o.binDir, "bin-dir", "bin", "with --dev: directory holding the manager binaries core, bootstrap-kubeadm, infrastructure-docker")
	f.StringVar(&o.stateDir, "state-dir", filepath.Join(".capstan", "dev"), "with --dev: directory for the managers' PID files, state and credentials")
	f.StringVar(&o.logDir, "log-dir", "", "with --dev: directory for the managers' logs, <provider module>.log (default: --state-dir)")
	f.StringArrayVar(&o.args, "manager-args", nil, "with --dev: extra flags of one manager, as PROVIDER=FLAGS (e.g. kubeadm=--bootstrap-token-ttl=1m); repeatable")
	f.DurationVar(&o.tokenTTL, "token-ttl", 7*24*time.Hour, "with --dev: lifetime of the ServiceAccount tokens the managers run with")
	f.BoolVar(&o.stop, "stop", false, "with --dev: stop the managers recorded in --state-dir and install nothing")
	f.BoolVar(&o.hostNet, "host-network", false, "run the manager pods in their nodes' network namespace (management cluster that is a Capstan docker cluster)")
	f.DurationVar(&o.interval, "poll-interval", time.Second, "how often waits re-read the cluster")
	_ = f.MarkHidden("poll-interval")
	for _, tf := range typeFlags {
		o.typed[tf.flag] = f.StringSlice(tf.flag, nil, fmt.Sprintf("%s providers to install, as NAME[:VERSION] (repeatable, comma-separated): "+
			"one the configuration file lists, or Capstan's embedded one", tf.providerType))
	}
	f.StringVar(&o.config, "config", "", "clusterctl configuration file listing the providers' repositories and variables "+
		"(default: capstanctl.yaml or clusterctl.yaml in $XDG_CONFIG_HOME/cluster-api, then in ~/.cluster-api)")
	f.StringVar(&o.targetNamespace, "target-namespace", "", "with a provider flag: install the providers read from repositories into this namespace")
	f.BoolVar(&o.listVariables, "list-variables", false, "with a provider flag: list the variables the providers' components need and install nothing")
	return c
}

func runInit(c *cobra.Command, g *globalOptions, o *initOptions) error {
	if typeFlagsSet(c) {
		if err := o.validate(c); err != nil {
			return err
		}
		return runInitProviders(c, g, o)
	}
	for _, n := range []string{"config", "target-namespace", "list-variables"} {
		if c.Flags().Changed(n) {
			return fmt.Errorf("--%s is for providers named with --core, --bootstrap, --control-plane or --infrastructure: add one", n)
		}
	}
	ps, err := components.Select(o.providers)
	if err != nil {
		return fmt.Errorf("--providers: %w", err)
	}
	if err := o.validate(c); err != nil {
		return err
	}
	if o.stop {
		return stopDevManagers(c, o, ps)
	}
	objs, managers, err := o.embeddedObjects(ps)
	if err != nil {
		return err
	}
	cfg, cl, dc, err := connectWithDiscovery(g)
	if err != nil {
		return err
	}
	if err := install.CheckServer(dc); err != nil {
		return err
	}
	out := c.OutOrStdout()
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.Name)
	}
	how := "images " + strings.Join(components.Images(objs), ", ")
	if o.dev {
		how = "managers as local processes from " + o.binDir
	}
	fmt.Fprintf(out, "Installing providers %s into the management cluster at %s (%s)\n", strings.Join(names, ", "), cfg.Host, how)

	plan, err := withInventory(components.NewPlan(objs, components.PlanOptions{WithoutWorkloads: o.dev}), ps, o.imageTag)
	if err != nil {
		return err
	}
	if !o.dev {
		return applyAndWait(c, cl, o, plan)
	}
	a := &install.Applier{Client: cl, Out: out, PollInterval: o.interval}
	if _, err := a.Apply(c.Context(), plan); err != nil {
		return err
	}
	return runDevManagers(c, g, cfg, o, ps, managers)
}

// embeddedObjects loads the embedded providers' objects as init applies them: for --dev, the
// local managers they will point at (their binaries checked first, before the cluster is
// touched: a missing binary is the likeliest mistake); else with --image-tag and --host-network.
func (o *initOptions) embeddedObjects(ps []components.Provider) ([]*unstructured.Unstructured, []localmanagers.Manager, error) {
	objs, err := components.Load(ps)
	if err != nil {
		return nil, nil, err
	}
	if o.dev {
		managers, err := o.devManagers(ps)
		if err != nil {
			return nil, nil, err
		}
		if err := localmanagers.CheckBinaries(managers); err != nil {
			return nil, nil, err
		}
		return objs, managers, o.pointConversionAtDevManagers(objs, ps, managers)
	}
	if err := components.SetImageTag(objs, o.imageTag); err != nil {
		return nil, nil, fmt.Errorf("--image-tag: %w", err)
	}
	if o.hostNet {
		if err := components.SetHostNetwork(objs); err != nil {
			return nil, nil, err
		}
	}
	return objs, nil, nil
}

// devOnlyFlags mean something only with --dev.
var devOnlyFlags = []string{"bin-dir", "state-dir", "log-dir", "manager-args", "token-ttl", "stop"}

// validate rejects flag combinations that cannot mean anything, saying which to drop.
func (o *initOptions) validate(c *cobra.Command) error {
	var devOnly []string
	for _, n := range devOnlyFlags {
		if c.Flags().Changed(n) {
			devOnly = append(devOnly, "--"+n)
		}
	}
	switch {
	case o.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %s", o.timeout)
	case o.dev && c.Flags().Changed("image-tag"):
		return fmt.Errorf("--image-tag chooses the Deployments' images, and --dev runs local binaries instead of Deployments: drop one of them")
	case o.dev && o.hostNet:
		return fmt.Errorf("--host-network is for the managers' pods, and --dev runs local processes instead: drop one of them")
	case !o.dev && len(devOnly) > 0:
		return fmt.Errorf("%s %s for --dev: add --dev to run the managers as local processes",
			strings.Join(devOnly, " and "), areOrIs(devOnly))
	case o.tokenTTL < 10*time.Minute:
		return fmt.Errorf("--token-ttl must be at least 10m (the API server's shortest token), got %s", o.tokenTTL)
	}
	return nil
}

func areOrIs(flags []string) string {
	if len(flags) == 1 {
		return "is"
	}
	return "are"
}
