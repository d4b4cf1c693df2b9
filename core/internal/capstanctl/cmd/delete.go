package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/deletecluster"
)

func newDeleteCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("delete", "Delete Capstan objects")
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
