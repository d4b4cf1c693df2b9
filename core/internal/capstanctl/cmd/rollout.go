package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/rollout"
)

func newRolloutCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("rollout", "Restart, pause, resume and follow the rollout of a MachineDeployment or KubeadmControlPlane")
	parent.AddCommand(
		newRolloutStatusCommand(g),
		rolloutChangeCommand(g, "restart", "Replace every Machine of a MachineDeployment or KubeadmControlPlane",
			`Set spec.rollout.after to now, so the controller replaces every Machine created before it, one
rollout as for a template change. A paused object is refused: resume it first.`,
			func(ctx context.Context, c client.Client, r rollout.Ref) (string, error) {
				return rollout.Restart(ctx, c, r, time.Now())
			}),
		rolloutChangeCommand(g, "pause", "Stop rolling out changes of a MachineDeployment or KubeadmControlPlane",
			`Pause a rollout, as clusterctl alpha rollout pause does: a MachineDeployment gets spec.paused
(it still scales, but rolls no change out), a KubeadmControlPlane the cluster.x-k8s.io/paused
annotation (its controller stops reconciling it). Pausing a paused object changes nothing.`,
			rollout.Pause),
		rolloutChangeCommand(g, "resume", "Resume a paused MachineDeployment or KubeadmControlPlane",
			`Undo rollout pause: clear a MachineDeployment's spec.paused, or remove a KubeadmControlPlane's
cluster.x-k8s.io/paused annotation. Resuming an object that is not paused changes nothing.`,
			rollout.Resume),
	)
	return parent
}

// rolloutResource parses the single RESOURCE argument of a rollout command.
func rolloutResource(c *cobra.Command, args []string, namespace string) (rollout.Ref, error) {
	switch len(args) {
	case 0:
		return rollout.Ref{}, fmt.Errorf("%s needs the object to roll out: %s", c.CommandPath(), rollout.Allowed)
	case 1:
		return rollout.ParseRef(args[0], namespace)
	default:
		return rollout.Ref{}, fmt.Errorf("%s takes one object, got %d arguments %q: name it as %s",
			c.CommandPath(), len(args), args, rollout.Allowed)
	}
}

const rolloutExamples = `  capstanctl rollout %[1]s machinedeployment/quickstart-md-0
  capstanctl rollout %[1]s kcp/quickstart-control-plane -n dev`

// rolloutChangeCommand is restart, pause or resume: read the object, change one field, print a line.
func rolloutChangeCommand(g *globalOptions, use, short, long string,
	change func(context.Context, client.Client, rollout.Ref) (string, error)) *cobra.Command {
	var namespace string
	c := &cobra.Command{
		Use:     use + " RESOURCE",
		Short:   short,
		Long:    long + "\n\nRESOURCE is " + rollout.Allowed + ".",
		Example: fmt.Sprintf(rolloutExamples, use),
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			r, err := rolloutResource(c, args, namespace)
			if err != nil {
				return err
			}
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			line, err := change(c.Context(), cl, r)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(c.OutOrStdout(), line)
			return err
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the object")
	return c
}

func newRolloutStatusCommand(g *globalOptions) *cobra.Command {
	var namespace string
	opts := rollout.StatusOptions{}
	c := &cobra.Command{
		Use:   "status RESOURCE",
		Short: "Follow the rollout of a MachineDeployment or KubeadmControlPlane until it completes",
		Long: `Follow a rollout, printing a line whenever its progress changes, until it is complete: the
controller has observed the latest spec and spec.replicas Machines are up to date, available and
ready, with no outdated Machine left. Fails after --timeout, and at once when the rollout cannot
finish without you: the object is paused (spec.paused, the cluster.x-k8s.io/paused annotation,
or a Paused condition, e.g. from a paused Cluster) or being deleted. With --watch=false, prints
the current progress once and fails only when the rollout cannot finish.

RESOURCE is ` + rollout.Allowed + ".",
		Example: fmt.Sprintf(rolloutExamples, "status") + `
  capstanctl rollout status md/quickstart-md-0 --timeout 30m`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			r, err := rolloutResource(c, args, namespace)
			if err != nil {
				return err
			}
			if opts.Watch && opts.Timeout <= 0 {
				return fmt.Errorf("--timeout must be positive, got %s", opts.Timeout)
			}
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			return rollout.Status(c.Context(), cl, r, opts, c.OutOrStdout())
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the object")
	c.Flags().BoolVarP(&opts.Watch, "watch", "w", true, "follow the rollout until it completes; false prints its state once")
	c.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "how long to follow the rollout")
	c.Flags().DurationVar(&opts.Interval, "poll-interval", rollout.DefaultInterval, "how often to check")
	_ = c.Flags().MarkHidden("poll-interval")
	return c
}
