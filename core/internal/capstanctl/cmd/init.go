package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
	interval  time.Duration
}

func newInitCommand(g *globalOptions) *cobra.Command {
	o := &initOptions{}
	c := &cobra.Command{
		Use:   "init",
		Short: "Install the providers' CRDs, RBAC and managers into a management cluster",
		Long: `Install Capstan's providers into the management cluster: for each provider its namespace, CRDs
(waiting until they are Established), ServiceAccount, ClusterRole and leader-election Role with
their bindings, and its manager Deployment, exactly as 'kustomize build <provider>/config/default'
renders them. Objects are server-side applied with field manager capstanctl, so running init
again changes nothing, and after an upgrade of capstanctl updates what changed.

The Deployments run the images 'make images' builds (capstan/<provider>-manager:<tag>); no
registry is used, so the management cluster's nodes must already have them. With --wait, init
waits until every manager is available and, on timeout, says why (conditions, pods' waiting
reasons).

With --dev, init installs the namespaces, CRDs and RBAC only and runs the manager binaries
('make managers' builds them into bin/) as local background processes against the cluster,
each on its own loopback ports, with PID files and logs in --state-dir, and waits until each
answers /readyz. Running it again keeps managers that run the same binary; rebuilt ones are
restarted. Stop them with: kill $(cat <state-dir>/*.pid).`,
		Example: `  capstanctl init --kubeconfig mgmt.kubeconfig --wait
  capstanctl init --providers core,kubeadm --image-tag v0.1.0
  capstanctl init --kubeconfig .capstan/mgmt/kubeconfig --dev`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runInit(c, g, o) },
	}
	f := c.Flags()
	f.StringSliceVar(&o.providers, "providers", components.Names(),
		"providers to install, comma-separated: "+strings.Join(components.Names(), ","))
	f.StringVar(&o.imageTag, "image-tag", "dev", "tag of the capstan/<provider>-manager images the Deployments run")
	f.BoolVar(&o.wait, "wait", false, "wait until every manager Deployment is available")
	f.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long --wait (or --dev's readiness wait) waits")
	f.BoolVar(&o.dev, "dev", false, "run the manager binaries as local processes instead of Deployments")
	f.StringVar(&o.binDir, "bin-dir", "bin", "with --dev: directory holding the manager binaries core, bootstrap-kubeadm, infrastructure-docker")
	f.StringVar(&o.stateDir, "state-dir", filepath.Join(".capstan", "dev"), "with --dev: directory for the managers' PID files, state and logs")
	f.DurationVar(&o.interval, "poll-interval", time.Second, "how often waits re-read the cluster")
	_ = f.MarkHidden("poll-interval")
	return c
}

func runInit(c *cobra.Command, g *globalOptions, o *initOptions) error {
	ps, err := components.Select(o.providers)
	if err != nil {
		return fmt.Errorf("--providers: %w", err)
	}
	switch {
	case o.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %s", o.timeout)
	case o.dev && c.Flags().Changed("image-tag"):
		return fmt.Errorf("--image-tag chooses the Deployments' images, and --dev runs local binaries instead of Deployments: drop one of them")
	case !o.dev && (c.Flags().Changed("bin-dir") || c.Flags().Changed("state-dir")):
		return fmt.Errorf("--bin-dir and --state-dir are for --dev: add --dev to run the managers as local processes")
	}
	objs, err := components.Load(ps)
	if err != nil {
		return err
	}
	var managers []localmanagers.Manager
	if o.dev {
		for _, p := range ps {
			managers = append(managers, localmanagers.Manager{Name: p.Module, Binary: filepath.Join(o.binDir, p.Module),
				Args: []string{"--leader-elect", "--leader-election-namespace=" + p.Namespace}})
		}
		// Before touching the cluster: a missing binary is the likeliest mistake.
		if err := localmanagers.CheckBinaries(managers); err != nil {
			return err
		}
	} else if err := components.SetImageTag(objs, o.imageTag); err != nil {
		return fmt.Errorf("--image-tag: %w", err)
	}

	cfg, err := g.cluster.RESTConfig()
	if err != nil {
		return err
	}
	cl, err := g.cluster.New()
	if err != nil {
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

	a := &install.Applier{Client: cl, Out: out, PollInterval: o.interval}
	plan := components.NewPlan(objs, components.PlanOptions{WithoutWorkloads: o.dev})
	if _, err := a.Apply(c.Context(), plan); err != nil {
		return err
	}

	if o.dev {
		kubeconfig, err := g.cluster.MinifiedKubeconfig()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(o.stateDir, 0o755); err != nil {
			return fmt.Errorf("creating --state-dir: %w", err)
		}
		kcPath := filepath.Join(o.stateDir, "kubeconfig")
		if err := os.WriteFile(kcPath, kubeconfig, 0o600); err != nil {
			return fmt.Errorf("writing the managers' kubeconfig: %w", err)
		}
		r := &localmanagers.Runner{StateDir: o.stateDir, Kubeconfig: kcPath, Out: out}
		if _, err := r.Up(c.Context(), managers, o.timeout); err != nil {
			return err
		}
		fmt.Fprintf(out, "Managers running; logs in %s; stop them with: kill $(cat %s)\n",
			o.stateDir, filepath.Join(o.stateDir, "*.pid"))
		return nil
	}
	if !o.wait {
		fmt.Fprintln(out, "Managers deployed; follow them with 'kubectl get deployments -A -l cluster.x-k8s.io/provider' or rerun with --wait")
		return nil
	}
	fmt.Fprintf(out, "Waiting up to %s for the managers to be available\n", o.timeout)
	if err := a.WaitDeployments(c.Context(), plan.Rest, o.timeout); err != nil {
		return err
	}
	fmt.Fprintln(out, "Managers available")
	return nil
}
