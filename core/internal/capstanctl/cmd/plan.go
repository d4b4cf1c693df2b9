package cmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"capstan.dev/core/internal/capstanctl/editplan"
	"capstan.dev/core/internal/capstanctl/output"
)

// exitReplaces is the exit code of `plan --fail-on-replace` when Machines would be replaced:
// distinct from 1 (any error), so that CI can tell a refused edit from a failed plan.
const exitReplaces = 3

func newPlanCommand(g *globalOptions) *cobra.Command {
	var files []string
	var namespace, format, edit string
	var failOnReplace bool
	c := &cobra.Command{
		Use:   "plan (-f FILE [-f FILE ...] | --edit KIND/NAME)",
		Short: "Show which Machines an edit of MachineDeployments, MachineSets or topology Clusters replaces",
		Long: `Show, before anything is applied, what applying the edited objects in the files would do to
their Machines: which are replaced (in the order the rollout deletes them, step by step under
maxSurge and maxUnavailable), which are added or removed by a replicas change (in the
MachineSet's deletion order), and which fields are changed in place on the existing Machines.
Nothing is written: each object goes through a server-side dry run (admission defaults and
checks it; a refused edit fails with the API server's message), and the outcome is decided with
the MachineDeployment controller's own functions. A Cluster with spec.topology is planned as
'capstanctl topology plan' plans it (pass its ClusterClass and templates too when they change),
and the MachineDeployments it changes are planned as above.

For each Machine replaced or removed that has a Node, the plan reads its workload cluster
(Secret <cluster>-kubeconfig) and names what will hold the drain, as the Machine controller
decides it: Pods waited for until they complete (label cluster.x-k8s.io/drain=wait-completed or
a MachineDrainRule), Pods evicted only after a lower drain order, Pods skipped, and Pods whose
eviction a PodDisruptionBudget refuses now (status.disruptionsAllowed 0, or more than one
budget). A workload cluster that cannot be read is a note on the plan.

A KubeadmControlPlane is not planned yet (said so in the plan); etcd quorum is not looked at.
An object that does not exist is reported as created by 'kubectl apply', replacing nothing.

--edit KIND/NAME opens the live object in $KUBE_EDITOR (else $EDITOR, else vi), as 'kubectl
edit' does, and plans what you saved instead of applying it; nothing is planned when you save
no change.

Exit codes: 0 planned; 1 error (unreadable file, unknown kind, refused edit);
3 with --fail-on-replace when a Machine of a MachineDeployment or MachineSet would be
replaced (a KubeadmControlPlane's are not planned, so they never count).`,
		Example: `  capstanctl plan -f md.yaml
  capstanctl plan -f md.yaml --fail-on-replace     # in CI: exit 3 if a Machine would be replaced
  capstanctl plan -f cluster.yaml -o yaml
  capstanctl plan --edit machinedeployment/md-0 -n team-a`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f, err := output.Parse(format)
			if err != nil {
				return err
			}
			switch {
			case len(files) == 0 && edit == "":
				return fmt.Errorf("%s needs the edited objects' file (-f md.yaml) or an object to edit (--edit machinedeployment/md-0)", c.CommandPath())
			case len(files) > 0 && edit != "":
				return fmt.Errorf("%s takes -f or --edit, not both", c.CommandPath())
			}
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			if edit != "" {
				path, cleanup, err := editForPlan(c, cl, edit, namespace)
				defer cleanup()
				if err != nil || path == "" {
					return err
				}
				files = []string{path}
			}
			docs, err := readDocuments(c.InOrStdin(), files, namespace)
			if err != nil {
				return err
			}
			if len(docs) == 0 {
				return fmt.Errorf("the files hold no object to plan")
			}
			res, err := editplan.Plan(c.Context(), cl, docs, time.Now())
			if err != nil {
				return err
			}
			if f.IsData() {
				err = output.Print(c.OutOrStdout(), f, res)
			} else {
				err = printEditPlan(c.OutOrStdout(), res)
			}
			if err == nil && failOnReplace && res.Replaces() {
				err = &exitError{code: exitReplaces, err: fmt.Errorf("--fail-on-replace: the edit replaces Machines")}
			}
			return err
		},
	}
	c.Flags().StringArrayVarP(&files, "filename", "f", nil, "a file of edited objects (- reads stdin)")
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the objects in the files that have none")
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml or json (default: text)")
	c.Flags().BoolVar(&failOnReplace, "fail-on-replace", false, "exit with code 3 when any Machine would be replaced")
	c.Flags().StringVar(&edit, "edit", "", "edit the live object KIND/NAME in your editor and plan what you save")
	return c
}

// printEditPlan prints each object's plan, then the topology Clusters' plans.
func printEditPlan(w io.Writer, res *editplan.Result) error {
	var b strings.Builder
	for _, p := range res.Objects {
		fmt.Fprintf(&b, "%s %s (%s): %s\n", p.Kind, p.Object, p.Source, p.Outcome)
		if p.Strategy != "" && len(p.Steps) > 0 {
			fmt.Fprintf(&b, "  strategy: %s\n", p.Strategy)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
		if len(p.Replaced) > 0 {
			fmt.Fprintf(&b, "  replaces %d Machines, in this order: %s\n", len(p.Replaced), strings.Join(p.Replaced, ", "))
		}
		if p.Added > 0 {
			fmt.Fprintf(&b, "  adds %d Machines\n", p.Added)
		}
		if len(p.Removed) > 0 {
			fmt.Fprintf(&b, "  removes %s\n", strings.Join(p.Removed, ", "))
		}
		for i, s := range p.Steps {
			fmt.Fprintf(&b, "  step %d%s\n", i+1, stepText(i, s, p.Kind))
		}
		for _, m := range p.Deleted() {
			if holds := p.DrainHolds[m]; len(holds) > 0 {
				fmt.Fprintf(&b, "  the drain of %s is held by:\n", m)
				for _, h := range holds {
					fmt.Fprintf(&b, "    %s\n", h)
				}
			}
		}
		if len(p.InPlace) > 0 {
			fmt.Fprintf(&b, "  in place (no Machine replaced): %s\n", strings.Join(p.InPlace, ", "))
		}
		if p.Outcome == editplan.InPlace && len(p.InPlace) == 0 && len(p.Notes) == 0 {
			b.WriteString("  no Machine changes\n")
		}
	}
	if len(res.Objects) > 0 {
		var replaced, added, removed int
		for _, p := range res.Objects {
			replaced, added, removed = replaced+len(p.Replaced), added+p.Added, removed+len(p.Removed)
		}
		fmt.Fprintf(&b, "Plan: %d Machines replaced, %d added, %d removed\n", replaced, added, removed)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return printPlans(w, res.Topology)
}

// stepText is ": delete m-a, create 1" or, after the first step, the same once the
// previous step's Machines are available; a KubeadmControlPlane's steps wait for the previous
// Machine to join or go, and add the etcd members.
func stepText(i int, s editplan.Step, kind string) string {
	var parts []string // the old Machines go first: the new ones take the room they leave
	if len(s.Delete) > 0 {
		parts = append(parts, "delete "+strings.Join(s.Delete, ", "))
	}
	if s.Create > 0 {
		c := fmt.Sprintf("create %d", s.Create)
		if s.Surge > 0 {
			c += fmt.Sprintf(" (%d surge)", s.Surge)
		}
		parts = append(parts, c)
	}
	etcd := ""
	if s.EtcdMembers > 0 {
		etcd = fmt.Sprintf(" (then etcd: %d members, quorum %d)", s.EtcdMembers, s.EtcdQuorum)
	}
	if i == 0 {
		return ": " + strings.Join(parts, ", ") + etcd
	}
	if kind == "KubeadmControlPlane" {
		return ", once the previous Machine has joined or gone: " + strings.Join(parts, ", ") + etcd
	}
	return ", once the new Machines are available: " + strings.Join(parts, ", ") + etcd
}
