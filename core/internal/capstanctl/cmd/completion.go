package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

var shells = []string{"bash", "zsh", "fish", "powershell"}

func newCompletionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print a shell completion script (bash, zsh, fish or powershell)",
		Long: `Print a completion script for SHELL. For example, in bash:

  source <(capstanctl completion bash)

or, in zsh, write it to a file in your $fpath as _capstanctl.`,
		ValidArgs: shells,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("completion needs exactly one shell, one of: %s", strings.Join(shells, ", "))
			}
			for _, s := range shells {
				if args[0] == s {
					return nil
				}
			}
			return fmt.Errorf("unsupported shell %q: supported shells are %s", args[0], strings.Join(shells, ", "))
		},
		RunE: func(c *cobra.Command, args []string) error {
			root, out := c.Root(), c.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
}
