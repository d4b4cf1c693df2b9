package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterclient"
	"capstan.dev/core/internal/capstanctl/move"
)

func newMoveCommand(g *globalOptions) *cobra.Command {
	var to clusterclient.Options
	var namespace string
	var dryRun bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "move --to-kubeconfig PATH",
		Short: "Move the workload clusters of a namespace to another management cluster",
		Long: `Move every Cluster API object of a namespace (Clusters, Machines, control planes, bootstrap
configs, infrastructure objects, templates) and the Secrets and ConfigMaps that belong to them,
certificates and kubeconfigs included, from this management cluster (--kubeconfig, --context) to
another one (--to-kubeconfig, --to-context). The workload clusters keep running: only the objects
that describe them move.

The target needs the same providers first ('capstanctl init --kubeconfig PATH'). capstanctl checks
that before changing anything, then pauses the objects in the source, copies them (owners first,
with their status) to the target, resumes the copies and deletes the originals without running
their finalizers, so no provider tears down infrastructure. A Cluster paused before the move stays
paused. If the move stops half-way, run the same command again: it resumes without duplicates.`,
		Example: `  capstanctl move --to-kubeconfig target.kubeconfig --dry-run
  capstanctl move --kubeconfig bootstrap.kubeconfig --to-kubeconfig prod.kubeconfig -n team-a`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if to.Kubeconfig == "" {
				return fmt.Errorf("--to-kubeconfig is required: the kubeconfig of the management cluster to move to " +
					"(install the providers there first with 'capstanctl init --kubeconfig PATH')")
			}
			if _, err := os.Stat(to.Kubeconfig); err != nil {
				return fmt.Errorf("--to-kubeconfig: %w", err)
			}
			if timeout <= 0 {
				return fmt.Errorf("--timeout must be positive, got %s", timeout)
			}
			source, sourceHost, err := connect(g.cluster)
			if err != nil {
				return err
			}
			target, targetHost, err := connect(to)
			if err != nil {
				return fmt.Errorf("the target management cluster (--to-kubeconfig %s): %w", to.Kubeconfig, err)
			}
			ctx, cancel := context.WithTimeout(c.Context(), timeout)
			defer cancel()
			err = move.Move(ctx, source, target, move.Options{
				Namespace: namespace, DryRun: dryRun, Out: c.OutOrStdout(),
				SourceName: sourceHost, TargetName: targetHost, InitCommand: initCommand(to),
			})
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("the move did not finish within --timeout %s: %w", timeout, err)
			}
			return err
		},
	}
	c.Flags().StringVar(&to.Kubeconfig, "to-kubeconfig", "", "path to the kubeconfig of the management cluster to move to (required)")
	c.Flags().StringVar(&to.Context, "to-context", "", "context of --to-kubeconfig to use (default: its current context)")
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace whose workload clusters move")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "check the target and print what would move, in order, changing nothing")
	c.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long the whole move may take")
	return c
}

// connect returns an uncached client (Secrets must not be cached) and the API server URL.
func connect(o clusterclient.Options) (client.Client, string, error) {
	cfg, err := o.RESTConfig()
	if err != nil {
		return nil, "", err
	}
	cl, err := o.New()
	if err != nil {
		return nil, "", err
	}
	return cl, cfg.Host, nil
}

// initCommand is the command that installs the providers into the target.
func initCommand(to clusterclient.Options) string {
	s := "capstanctl init --kubeconfig " + to.Kubeconfig
	if to.Context != "" {
		s += " --context " + to.Context
	}
	return s
}
