package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/output"
	"capstan.dev/core/internal/capstanctl/providers"
	"capstan.dev/core/internal/capstanctl/version"
)

func newProvidersCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("providers", "Show the providers Capstan ships")
	var format string
	var installed bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List Capstan's providers, their contract, API group and kinds",
		Long: `List the providers Capstan ships: the core (cluster-api), kubeadm bootstrap and control plane,
and docker infrastructure. The table needs no cluster. With --installed, capstanctl also checks
the management cluster for each provider's CRDs and the cluster.x-k8s.io/<contract> label on them.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f, err := output.Parse(format)
			if err != nil {
				return err
			}
			ps := providers.Shipped(version.Get().Version)
			if installed {
				cl, err := g.cluster.New()
				if err != nil {
					return err
				}
				if err := providers.CheckInstalled(c.Context(), cl, ps); err != nil {
					return err
				}
			}
			if f.IsData() {
				return output.Print(c.OutOrStdout(), f, ps)
			}
			return printProviders(c, ps, installed)
		},
	}
	list.Flags().StringVarP(&format, "output", "o", "", "output format: yaml or json (default: a table)")
	list.Flags().BoolVar(&installed, "installed", false, "also check which providers' CRDs the management cluster has")
	parent.AddCommand(list)
	return parent
}

func printProviders(c *cobra.Command, ps []providers.Provider, installed bool) error {
	tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', 0)
	header := "NAME\tTYPE\tCONTRACT\tVERSION\tAPI GROUP\tKINDS"
	if installed {
		header += "\tINSTALLED"
	}
	fmt.Fprintln(tw, header)
	var problems []string
	for _, p := range ps {
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", p.Name, p.Type, p.Contract, p.Version, p.APIGroup, strings.Join(p.Kinds, ","))
		if installed {
			state := "yes"
			if p.Installed != nil && !*p.Installed {
				state = "no"
			}
			row += "\t" + state
			for _, crd := range p.CRDs {
				if crd.Problem != "" {
					problems = append(problems, fmt.Sprintf("%s %s: %s: %s", p.Name, p.Type, crd.Name, crd.Problem))
				}
			}
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(problems) > 0 {
		fmt.Fprintln(c.OutOrStdout(), "\nNot installed:")
		for _, p := range problems {
			fmt.Fprintln(c.OutOrStdout(), "  "+p)
		}
	}
	return nil
}
