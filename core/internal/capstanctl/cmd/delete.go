package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/deletecluster"
)

func newDeleteCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("delete", "Delete a workload cluster, or remove providers from the management cluster")
	parent.Long = `'capstanctl delete cluster NAME' deletes a workload cluster.

'capstanctl delete --provider NAME' (or --core/--bootstrap/--control-plane/--infrastructure NAME, as
clusterctl delete) removes an installed provider, as clusterctl's inventory names it: the objects
labelled cluster.x-k8s.io/provider=NAME in its namespace and cluster-wide, and its inventory entry.
Its CRDs stay, and with them every object of its kinds, unless --include-crd, which is refused while
objects of those CRDs exist (delete the clusters using them first); its namespace stays unless
--include-namespace.`
	parent.Example = `  capstanctl delete cluster quickstart --wait
  capstanctl delete --provider infrastructure-example
  capstanctl delete --infrastructure example --include-crd --include-namespace`
	po := &deleteProviderOptions{}
	addDeleteProviderFlags(parent, po)
	groupRun := parent.RunE
	parent.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 && (c.Flags().Changed("provider") || typeFlagsSet(c)) {
			return runDeleteProviders(c, g, po)
		}
		if c.Flags().Changed("include-crd") || c.Flags().Changed("include-namespace") {
			return fmt.Errorf("--include-crd and --include-namespace are for providers: name them with --provider")
		}
		return groupRun(c, args)
	}
	var namespace string
	var wait bool
	var timeout, interval time.Duration
	c := &cobra.Command{
		Use:   "cluster NAME",
		Short: "Delete a workload cluster",
		Long: `Delete a Cluster. The providers then delete its workers, control plane and infrastructure, and the
Cluster disappears last. With --wait, capstanctl follows the deletion until the Cluster is gone,
printing its progress, and fails after --timeout naming what is left.`,
		Example: `  capstanctl delete cluster quickstart --wait`,
		Args:    exactlyOneName("Cluster"),
		RunE: func(c *cobra.Command, args []string) error {
			if wait && timeout <= 0 {
				return fmt.Errorf("--timeout must be positive, got %s", timeout)
			}
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			name := args[0]
			if err := deletecluster.Delete(c.Context(), cl, namespace, name); err != nil {
				return err
			}
			out := c.OutOrStdout()
			if !wait {
				_, err := fmt.Fprintf(out, "Cluster %s/%s deletion requested; follow it with 'capstanctl describe cluster %s -n %s' or rerun with --wait\n",
					namespace, name, name, namespace)
				return err
			}
			fmt.Fprintf(out, "Cluster %s/%s deletion requested; waiting up to %s for it to be gone\n", namespace, name, timeout)
			return deletecluster.Wait(c.Context(), cl, namespace, name, timeout, interval, out)
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the Cluster")
	c.Flags().BoolVar(&wait, "wait", false, "wait until the Cluster is gone")
	c.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "how long --wait waits")
	c.Flags().DurationVar(&interval, "poll-interval", deletecluster.DefaultInterval, "how often --wait checks")
	_ = c.Flags().MarkHidden("poll-interval")
	parent.AddCommand(c)
	return parent
}
