package cmd

import (
	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/kubeconfig"
)

func newGetCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("get", "Get data of a workload cluster")
	var namespace, server string
	c := &cobra.Command{
		Use:   "kubeconfig NAME",
		Short: "Print the admin kubeconfig of a workload cluster",
		Long: `Print the admin kubeconfig of a workload cluster, from its <NAME>-kubeconfig Secret.

The server in it is set to the Cluster's spec.controlPlaneEndpoint, the address reachable from the
management side, when that differs from what the control plane wrote; --server overrides it.`,
		Example: `  capstanctl get kubeconfig quickstart > quickstart.kubeconfig
  kubectl --kubeconfig quickstart.kubeconfig get nodes`,
		Args: exactlyOneName("Cluster"),
		RunE: func(c *cobra.Command, args []string) error {
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			data, err := kubeconfig.Get(c.Context(), cl, namespace, args[0], server)
			if err != nil {
				return err
			}
			_, err = c.OutOrStdout().Write(data)
			return err
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the Cluster")
	c.Flags().StringVar(&server, "server", "", "API server URL to write into the kubeconfig, e.g. https://127.0.0.1:6443")
	parent.AddCommand(c)
	return parent
}
