package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/describe"
	"capstan.dev/core/internal/capstanctl/output"
)

func newDescribeCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("describe", "Show the state of Capstan objects")
	var namespace, format, showConditions string
	var grouping, showResourceSets bool
	c := &cobra.Command{
		Use:   "cluster NAME",
		Short: "Show a Cluster as a tree of its infrastructure, control plane, workers and Machines",
		Long: `Show a Cluster as a tree: its infrastructure, its control plane with its Machines, and its
workers (MachineDeployments with their Machines, MachinePools, other Machines).

READY is the status of each object's Ready condition, or of its Available condition for objects that
have no Ready condition (Cluster, KubeadmControlPlane, MachineDeployment, MachinePool). Machines in
the same state are shown as one row unless --grouping=false.`,
		Example: `  capstanctl describe cluster quickstart
  capstanctl describe cluster quickstart -n dev --show-conditions KubeadmControlPlane,Machine
  capstanctl describe cluster quickstart --show-resourcesets
  capstanctl describe cluster quickstart -o yaml`,
		Args: exactlyOneName("Cluster"),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := output.Parse(format)
			if err != nil {
				return err
			}
			filter, err := describe.ParseConditionFilter(showConditions)
			if err != nil {
				return err
			}
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			objs, err := describe.Read(c.Context(), cl, namespace, args[0])
			if err != nil {
				return err
			}
			if showResourceSets {
				if objs.ClusterResourceSets, err = describe.ReadResourceSets(c.Context(), cl, namespace, args[0]); err != nil {
					return err
				}
			}
			tree := describe.Build(*objs, describe.Options{Grouping: grouping, ShowConditions: filter})
			if f.IsData() {
				return output.Print(c.OutOrStdout(), f, tree)
			}
			return describe.PrintTable(c.OutOrStdout(), tree, time.Now())
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the Cluster")
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml or json (default: a table)")
	c.Flags().BoolVar(&grouping, "grouping", true, "show Machines in the same state as one row")
	c.Flags().BoolVar(&showResourceSets, "show-resourcesets", false,
		"show the ClusterResourceSets bound to the Cluster (READY is their ResourcesApplied condition)")
	c.Flags().StringVar(&showConditions, "show-conditions", "",
		"list all conditions of these objects: all, or comma-separated Kind or Kind/name (e.g. Cluster,Machine)")
	parent.AddCommand(c)
	return parent
}
