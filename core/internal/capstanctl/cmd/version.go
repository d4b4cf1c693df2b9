package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/output"
	"capstan.dev/core/internal/capstanctl/version"
)

// short is version's extra -o format: the version alone.
const short output.Format = "short"

func newVersionCommand() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the capstanctl version",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f, err := output.Parse(format, short)
			if err != nil {
				return err
			}
			info := version.Get()
			switch {
			case f.IsData():
				return output.Print(c.OutOrStdout(), f, info)
			case f == short:
				_, err = fmt.Fprintln(c.OutOrStdout(), info.Version)
			default:
				_, err = fmt.Fprintf(c.OutOrStdout(), "capstanctl %s (commit %s, %s, %s)\n", info.Version, info.GitCommit, info.GoVersion, info.Platform)
			}
			return err
		},
	}
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml, json or short")
	return c
}
