package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/install"
	"capstan.dev/core/internal/capstanctl/inventory"
	"capstan.dev/core/internal/capstanctl/providercomponents"
)

// connectWithDiscovery opens the management cluster: its REST configuration, a client and a discovery client.
func connectWithDiscovery(g *globalOptions) (*rest.Config, client.Client, discovery.DiscoveryInterface, error) {
	cfg, err := g.cluster.RESTConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	cl, err := g.cluster.New()
	if err != nil {
		return nil, nil, nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("connecting to the management cluster at %s: %w", cfg.Host, err)
	}
	return cfg, cl, dc, nil
}

// connectForInit opens the management cluster and refuses one that cannot run Capstan's providers.
func connectForInit(g *globalOptions) (client.Client, string, error) {
	cfg, cl, dc, err := connectWithDiscovery(g)
	if err != nil {
		return nil, "", err
	}
	if err := install.CheckServer(dc); err != nil {
		return nil, "", err
	}
	return cl, cfg.Host, nil
}

// preflightProviders reads the cluster and refuses, before anything is written, a downgrade,
// a second instance in another namespace and components that need a cert-manager the cluster lacks.
func preflightProviders(c *cobra.Command, cl client.Client, comps []providercomponents.Components) error {
	ctx := c.Context()
	installed, err := inventory.Read(ctx, cl)
	if err != nil {
		return err
	}
	for _, cs := range comps {
		if err := install.CheckUpgrade(installed, cs.Label, cs.Namespace, cs.Version); err != nil {
			return err
		}
		if err := install.CheckCertManager(ctx, cl, cs.String(), providercomponents.CertManagerUsers(cs.Objects)); err != nil {
			return err
		}
	}
	return nil
}

// applyAndWait applies the plan and, with --wait, waits for its Deployments.
func applyAndWait(c *cobra.Command, cl client.Client, o *initOptions, plan components.Plan) error {
	out := c.OutOrStdout()
	a := &install.Applier{Client: cl, Out: out, PollInterval: o.interval}
	if _, err := a.Apply(c.Context(), plan); err != nil {
		return err
	}
	if !o.wait {
		fmt.Fprintln(out, "Managers deployed; follow them with 'kubectl get deployments -A -l cluster.x-k8s.io/provider' or rerun with --wait")
		return nil
	}
	return waitManagers(c, a, plan.Rest, o.timeout)
}

// defaultWaitTimeout is how long init --wait and upgrade apply --wait wait by default.
const defaultWaitTimeout = 5 * time.Minute

// waitManagers waits up to timeout for the Deployments among objs to be available, printing
// each change; on timeout the error names each Deployment still waiting, its conditions and
// its pods. init and upgrade apply share it, so both report the same way.
func waitManagers(c *cobra.Command, a *install.Applier, objs []*unstructured.Unstructured, timeout time.Duration) error {
	out := c.OutOrStdout()
	fmt.Fprintf(out, "Waiting up to %s for the managers to be available\n", timeout)
	if err := a.WaitDeployments(c.Context(), objs, timeout); err != nil {
		return err
	}
	fmt.Fprintln(out, "Managers available")
	return nil
}
