package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/editplan"
	"capstan.dev/core/internal/capstanctl/output"
	"capstan.dev/core/internal/capstanctl/template"
	"capstan.dev/core/internal/capstanctl/topologyplan"
)

func newTopologyCommand(g *globalOptions) *cobra.Command {
	parent := groupCommand("topology", "Work with Clusters built from a ClusterClass")
	var files []string
	var namespace, format string
	c := &cobra.Command{
		Use:   "plan -f FILE [-f FILE ...]",
		Short: "Show what the topology controller would create, change and delete for a topology Cluster",
		Long: `Show what the topology controller would do for each Cluster with spec.topology in the files: the
objects it would create, change (with a diff of their metadata and spec) and delete. Nothing is
written to the management cluster: the ClusterClass and its templates are read from the files
when they hold them, else from the management cluster, the desired state is computed with the
controller's own code, and changes are found with server-side dry runs.

A topology whose variables the class's schemas refuse fails with each invalid field's path.
Objects without a namespace in the files are in -n's namespace.`,
		Example: `  capstanctl topology plan -f cluster.yaml
  capstanctl topology plan -f cluster.yaml -f examples/clusterclass-quick-start.yaml
  capstanctl generate cluster dev --flavor development | capstanctl topology plan -f - -o yaml`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f, err := output.Parse(format)
			if err != nil {
				return err
			}
			if len(files) == 0 {
				return fmt.Errorf("%s needs the topology Cluster's file: -f cluster.yaml", c.CommandPath())
			}
			objs, err := readObjectFiles(c.InOrStdin(), files, namespace)
			if err != nil {
				return err
			}
			cl, err := g.cluster.New()
			if err != nil {
				return err
			}
			plans, err := topologyplan.Plan(c.Context(), cl, objs)
			if err != nil {
				return err
			}
			if f.IsData() {
				return output.Print(c.OutOrStdout(), f, plans)
			}
			return printPlans(c.OutOrStdout(), plans)
		},
	}
	c.Flags().StringArrayVarP(&files, "filename", "f", nil, "a file of objects: the topology Cluster, and optionally its ClusterClass and templates (- reads stdin)")
	c.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace, "namespace of the objects in the files that have none")
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml or json (default: text with diffs)")
	parent.AddCommand(c)
	return parent
}

// readObjectFiles decodes the objects of every file ("-": stdin), giving those without a
// namespace the default one.
func readObjectFiles(stdin io.Reader, files []string, namespace string) ([]*unstructured.Unstructured, error) {
	docs, err := readDocuments(stdin, files, namespace)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(docs))
	for i, d := range docs {
		out[i] = d.Object
	}
	return out, nil
}

// readDocuments is readObjectFiles keeping where each object comes from ("md.yaml, object 2": blank and comment-only documents are not counted).
func readDocuments(stdin io.Reader, files []string, namespace string) ([]editplan.Document, error) {
	var out []editplan.Document
	for _, name := range files {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		objs, err := template.Objects(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i, o := range objs {
			if o.GetNamespace() == "" {
				o.SetNamespace(namespace)
			}
			out = append(out, editplan.Document{Source: fmt.Sprintf("%s, object %d", name, i+1), Object: o})
		}
	}
	return out, nil
}

// printPlans prints each Cluster's plan: one line per object, diffs indented under changes.
func printPlans(w io.Writer, plans []topologyplan.ClusterPlan) error {
	var b strings.Builder
	for _, p := range plans {
		fmt.Fprintf(&b, "Cluster %s (ClusterClass %s, version %s):\n", p.Cluster, p.Class, p.Version)
		for _, line := range p.Upgrade {
			fmt.Fprintf(&b, "  upgrade: %s\n", line)
		}
		if len(p.Changes) == 0 {
			b.WriteString("  no changes: the management cluster already holds the desired state\n")
		}
		for _, ch := range p.Changes {
			fmt.Fprintf(&b, "  %-6s %s %s/%s\n", ch.Action, ch.Object.GetKind(), ch.Object.GetNamespace(), ch.Object.GetName())
			if ch.Note != "" {
				fmt.Fprintf(&b, "         (%s)\n", ch.Note)
			}
			for _, line := range strings.SplitAfter(ch.Diff, "\n") {
				if line != "" {
					b.WriteString("         " + line)
				}
			}
		}
		fmt.Fprintf(&b, "Plan: %s\n", topologyplan.Summary(p.Changes))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
