// Package cmd is capstanctl's command line: the cobra command tree, its flags,
// and the translation of each command's result into text or -o yaml|json data.
// The work itself lives in sibling packages (describe, template, kubeconfig,
// deletecluster, move, rollout, topologyplan, editplan, providers, version, and
// components, install, devcreds and localmanagers for init; repository, providercomponents,
// inventory, deleteprovider and upgrade for providers installed from clusterctl repositories); this package must stay a thin layer of flag parsing and printing
// over them, so that every behaviour can be tested without cobra.
//
// Conventions every command follows: errors are returned (never printed and
// swallowed) and say what to do next; Execute turns any error into a non-zero
// exit code; --kubeconfig (or KUBECONFIG) and --context choose the management
// cluster; commands about one Cluster take -n/--namespace, defaulting to "default"
// as kubectl does for an unset context namespace.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// defaultNamespace is -n's default.
const defaultNamespace = "default"

// globalOptions are the persistent flags.
type globalOptions struct {
	cluster clusterclient.Options
}

// NewRootCommand builds the capstanctl command tree.
func NewRootCommand() *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "capstanctl",
		Short: "Manage Capstan workload clusters from the management cluster",
		Long: `capstanctl installs Capstan's providers, and other clusterctl-format providers from local
repositories, into a management cluster (init), upgrades those from repositories (upgrade plan, upgrade apply), removes
providers (delete --provider), moves workload
clusters between management clusters (move), and generates, inspects and deletes Capstan
workload clusters: Kubernetes clusters declared as Cluster API (cluster.x-k8s.io/v1beta2)
objects on that management cluster.

It talks to the management cluster chosen by --kubeconfig, else KUBECONFIG, else ~/.kube/config.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true // replaced by our own completion command
	root.PersistentFlags().StringVar(&g.cluster.Kubeconfig, "kubeconfig", "",
		"path to the management cluster's kubeconfig (default: KUBECONFIG, then ~/.kube/config)")
	root.PersistentFlags().StringVar(&g.cluster.Context, "context", "", "kubeconfig context to use (default: the current context)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w: see '%s --help'", err, c.CommandPath())
	})

	root.AddCommand(
		newVersionCommand(),
		newCompletionCommand(),
		newProvidersCommand(g),
		newGenerateCommand(),
		newDescribeCommand(g),
		newGetCommand(g),
		newDeleteCommand(g),
		newInitCommand(g),
		newMoveCommand(g),
		newTopologyCommand(g),
		newRolloutCommand(g),
		newPlanCommand(g),
		newEtcdCommand(g),
		newUpgradeCommand(g),
	)
	return root
}

// Execute runs capstanctl with args, printing to stdout and stderr, and returns
// the process exit code: 0 on success, 1 on any error, or the code a command chose for an
// outcome scripts tell apart (plan --fail-on-replace: 3).
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		if e := (*exitError)(nil); errors.As(err, &e) {
			return e.code
		}
		return 1
	}
	return 0
}

// exitError is an error with its own exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exactlyOneName requires the single NAME argument of a command about one object.
func exactlyOneName(what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return fmt.Errorf("%s needs the %s name: %s", c.CommandPath(), what, c.UseLine())
		default:
			return fmt.Errorf("%s takes one %s name, got %d arguments: %s", c.CommandPath(), what, len(args), c.UseLine())
		}
	}
}

// noArgs rejects positional arguments with a usage hint.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q: see '%s --help'", c.CommandPath(), args, c.CommandPath())
	}
	return nil
}

// groupCommand is a parent command that only holds subcommands; run bare, it
// fails listing them.
func groupCommand(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var subs []string
			for _, s := range c.Commands() {
				if s.IsAvailableCommand() {
					subs = append(subs, s.Name())
				}
			}
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %s: available: %v", args[0], c.CommandPath(), subs)
			}
			return fmt.Errorf("%s needs a subcommand: %v", c.CommandPath(), subs)
		},
	}
}
