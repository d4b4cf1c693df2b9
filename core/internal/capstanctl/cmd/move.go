package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterclient"
	"capstan.dev/core/internal/capstanctl/move"
)

func newMoveCommand(g *globalOptions) *cobra.Command {
	var o moveOptions
	c := &cobra.Command{
		Use:   "move (--to-kubeconfig PATH | --to-directory DIR | --from-directory DIR)",
		Short: "Move the workload clusters of a namespace to another management cluster, or back them up and restore them",
		Long: `Move every Cluster API object of a namespace (Clusters, Machines, control planes, bootstrap
configs, infrastructure objects, templates) and the Secrets and ConfigMaps that belong to them,
certificates and kubeconfigs included, from this management cluster (--kubeconfig, --context) to
another one (--to-kubeconfig, --to-context). The workload clusters keep running: only the objects
that describe them move.

The target needs the same providers first ('capstanctl init --kubeconfig PATH'). capstanctl checks
that before changing anything, then pauses the objects in the source, copies them (owners first,
with their status) to the target, resumes the copies and deletes the originals without running
their finalizers, so no provider tears down infrastructure. A Cluster paused before the move stays
paused. If the move stops half-way, run the same command again: it resumes without duplicates.

Backup and restore, as clusterctl's: --to-directory DIR pauses the same objects, writes each one
with its status to DIR/<Kind>_<namespace>_<name>.yaml (DIR must exist) and resumes them; the
source keeps everything. --from-directory DIR creates the objects of DIR in the management cluster
of --kubeconfig (owners first, owner references pointing at the new objects, status restored, the
Clusters paused until every object exists), refusing before any write a file that is not an object,
a kind the cluster does not serve, and an object already there that no restore of DIR created.
Running it again changes nothing. The three flags exclude each other; --dry-run works with each.`,
		Example: `  capstanctl move --to-kubeconfig target.kubeconfig --dry-run
  capstanctl move --kubeconfig bootstrap.kubeconfig --to-kubeconfig prod.kubeconfig -n team-a
  capstanctl move --kubeconfig prod.kubeconfig -n team-a --to-directory /backups/team-a
  capstanctl move --kubeconfig new.kubeconfig --from-directory /backups/team-a`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(c.Context(), o.timeout)
			defer cancel()
			var err error
			switch {
			case o.toDirectory != "":
				err = o.runToDirectory(ctx, c, g)
			case o.fromDirectory != "":
				err = o.runFromDirectory(ctx, c, g)
			default:
				err = o.runMove(ctx, c, g)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("the move did not finish within --timeout %s: %w", o.timeout, err)
			}
			return err
		},
	}
	c.Flags().StringVar(&o.to.Kubeconfig, "to-kubeconfig", "", "path to the kubeconfig of the management cluster to move to")
	c.Flags().StringVar(&o.to.Context, "to-context", "", "context of --to-kubeconfig to use (default: its current context)")
	c.Flags().StringVar(&o.toDirectory, "to-directory", "", "back the objects up into this existing directory, one file per object, instead of moving them")
	c.Flags().StringVar(&o.fromDirectory, "from-directory", "", "restore the objects backed up in this directory into the management cluster of --kubeconfig")
	c.Flags().StringVarP(&o.namespace, "namespace", "n", defaultNamespace, "namespace whose workload clusters move (--from-directory: the files' own)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "check and print what would move, be written or be created, in order, changing nothing")
	c.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the whole move may take")
	return c
}

// moveOptions are the flags of capstanctl move.
type moveOptions struct {
	to                         clusterclient.Options
	toDirectory, fromDirectory string
	namespace                  string
	dryRun                     bool
	timeout                    time.Duration
}

// validate checks that exactly one destination is chosen and the timeout is usable.
func (o *moveOptions) validate() error {
	var chosen []string
	for flag, v := range map[string]string{"--to-kubeconfig": o.to.Kubeconfig, "--to-directory": o.toDirectory, "--from-directory": o.fromDirectory} {
		if v != "" {
			chosen = append(chosen, flag)
		}
	}
	slices.Sort(chosen)
	switch {
	case len(chosen) == 0:
		return fmt.Errorf("one of --to-kubeconfig (move to another management cluster; install the providers there first with " +
			"'capstanctl init --kubeconfig PATH'), --to-directory (back up) or --from-directory (restore) is required")
	case len(chosen) > 1:
		return fmt.Errorf("%s exclude each other: pass one of --to-kubeconfig (move), --to-directory (back up) and --from-directory (restore)",
			strings.Join(chosen, " and "))
	case o.to.Context != "" && o.to.Kubeconfig == "":
		return fmt.Errorf("--to-context needs --to-kubeconfig; with --from-directory, choose the target with --kubeconfig and --context")
	case o.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %s", o.timeout)
	}
	if o.to.Kubeconfig != "" {
		if _, err := os.Stat(o.to.Kubeconfig); err != nil {
			return fmt.Errorf("--to-kubeconfig: %w", err)
		}
	}
	return nil
}

func (o *moveOptions) runMove(ctx context.Context, c *cobra.Command, g *globalOptions) error {
	source, sourceHost, err := connect(g.cluster)
	if err != nil {
		return err
	}
	target, targetHost, err := connect(o.to)
	if err != nil {
		return fmt.Errorf("the target management cluster (--to-kubeconfig %s): %w", o.to.Kubeconfig, err)
	}
	return move.Move(ctx, source, target, move.Options{
		Namespace: o.namespace, DryRun: o.dryRun, Out: c.OutOrStdout(),
		SourceName: sourceHost, TargetName: targetHost, InitCommand: initCommand(o.to),
	})
}

func (o *moveOptions) runToDirectory(ctx context.Context, c *cobra.Command, g *globalOptions) error {
	source, sourceHost, err := connect(g.cluster)
	if err != nil {
		return err
	}
	return move.ToDirectory(ctx, source, o.toDirectory, move.Options{
		Namespace: o.namespace, DryRun: o.dryRun, Out: c.OutOrStdout(), SourceName: sourceHost,
	})
}

func (o *moveOptions) runFromDirectory(ctx context.Context, c *cobra.Command, g *globalOptions) error {
	target, targetHost, err := connect(g.cluster)
	if err != nil {
		return err
	}
	return move.FromDirectory(ctx, target, o.fromDirectory, move.Options{
		DryRun: o.dryRun, Out: c.OutOrStdout(), TargetName: targetHost, InitCommand: initCommand(g.cluster),
	})
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
	s := "capstanctl init"
	if to.Kubeconfig != "" {
		s += " --kubeconfig " + to.Kubeconfig
	}
	if to.Context != "" {
		s += " --context " + to.Context
	}
	return s
}
