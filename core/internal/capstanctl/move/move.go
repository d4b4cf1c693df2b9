package move

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options say what Move moves and where it reports.
type Options struct {
	// Namespace is the namespace whose Cluster API objects move.
	Namespace string
	// DryRun stops after the preflight and prints the order the objects would move in.
	DryRun bool
	// Out receives a line per phase; nil discards them.
	Out io.Writer
	// SourceName and TargetName name the two management clusters in the first line.
	SourceName, TargetName string
	// InitCommand installs the providers into the target; preflight errors suggest it.
	InitCommand string
	// BlockMoveTimeout bounds the wait for BlockMoveAnnotation to go (0: DefaultBlockMoveTimeout).
	BlockMoveTimeout time.Duration
}

// Move moves every Cluster API object of opts.Namespace, with the Secrets and ConfigMaps
// that belong to them, from source to target: discover, preflight, pause the source, wait
// for the block-move annotations to go, copy, resume the copies, delete the originals. Both
// clients must be uncached. An error after the preflight leaves nothing lost (the source is
// deleted only once every copy exists), and running Move again resumes where it stopped.
func Move(ctx context.Context, source, target client.Client, opts Options) error {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	if opts.InitCommand == "" {
		opts.InitCommand = "capstanctl init --kubeconfig <target kubeconfig>"
	}
	fmt.Fprintf(out, "Moving the Cluster API objects of namespace %s from %s to %s\n", opts.Namespace, name(opts.SourceName), name(opts.TargetName))
	plan, err := Discover(ctx, source, opts.Namespace)
	if err != nil {
		return err
	}
	if len(plan.Objects) == 0 {
		fmt.Fprintf(out, "Namespace %s of the source holds no Cluster API objects: nothing to move\n", opts.Namespace)
		return nil
	}
	fmt.Fprintf(out, "Found %s in the source: %s\n", plural(len(plan.Objects), "object"), CountByKind(plan.Objects))

	t, err := Preflight(ctx, target, plan, opts.InitCommand)
	if err != nil {
		return err
	}
	left := ""
	if n := len(t.Copies); n > 0 {
		left = fmt.Sprintf("; %s copied by an earlier, interrupted move will be reused", plural(n, "object"))
	}
	fmt.Fprintf(out, "Preflight passed: the target serves all %s and holds none of the objects%s\n", plural(len(plan.CRDs), "Cluster API kind"), left)
	if b := blocked(plan); len(b) > 0 {
		fmt.Fprintf(out, "Carrying %s, to wait for once the source is paused: %s\n", BlockMoveAnnotation, strings.Join(b, ", "))
	}
	if opts.DryRun {
		printOrder(out, plan)
		fmt.Fprintln(out, "Dry run: nothing changed")
		return nil
	}

	paused, err := PauseSource(ctx, source, plan)
	if err != nil {
		return resumable(err)
	}
	fmt.Fprintf(out, "Paused in the source: %s (spec.paused), %s (annotation %s)\n",
		plural(paused.Clusters, "Cluster"), plural(paused.Objects, "object"), "cluster.x-k8s.io/paused")
	if len(paused.Before) > 0 {
		fmt.Fprintf(out, "Paused before the move, so they stay paused in the target: %s\n", strings.Join(paused.Before, ", "))
	}
	if len(blocked(plan)) > 0 {
		if err := WaitUnblocked(ctx, source, plan, opts.BlockMoveTimeout); err != nil {
			return resumable(err)
		}
		fmt.Fprintf(out, "No object carries %s any more\n", BlockMoveAnnotation)
	}

	copied, err := CopyToTarget(ctx, target, plan, t)
	if err != nil {
		return resumable(err)
	}
	fmt.Fprintf(out, "Copied %s: %s (created %d, updated %d, unchanged %d)\n", plural(len(copied.Copies), "object"),
		CountByKind(copied.Copies), copied.Created, copied.Updated, copied.Unchanged)

	clusters, objects, err := ResumeCopies(ctx, target, copied.Copies)
	if err != nil {
		return resumable(err)
	}
	fmt.Fprintf(out, "Resumed in the target: %s, %s\n", plural(clusters, "Cluster"), plural(objects, "object"))

	deleted, err := DeleteFromSource(ctx, source, plan)
	if err != nil {
		return fmt.Errorf("%w; every copy is in the target and resumed: run the same 'capstanctl move' again to finish deleting from the source", err)
	}
	owned, shared := plan.split()
	fmt.Fprintf(out, "Deleted %s from the source: %s\n", plural(deleted, "object"), CountByKind(owned))
	if len(shared) > 0 {
		fmt.Fprintf(out, "Kept in the source, as clusterctl keeps them (cluster-scoped, shared by other namespaces' Clusters): %s\n", CountByKind(shared))
	}
	if names := clusterNames(plan); len(names) > 0 {
		noun := "Cluster"
		if len(names) > 1 {
			noun = "Clusters"
		}
		fmt.Fprintf(out, "Move complete: the target management cluster now manages %s %s\n", noun, strings.Join(names, ", "))
	} else {
		fmt.Fprintln(out, "Move complete")
	}
	return nil
}

// resumable says what to do after a failure between the pause and the deletion.
func resumable(err error) error {
	return fmt.Errorf("%w; nothing was deleted from the source, which stays paused: run the same 'capstanctl move' again to resume the move", err)
}

func name(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}

func clusterNames(plan *Plan) []string {
	var names []string
	for _, o := range plan.Objects {
		if isCluster(o) {
			names = append(names, o.GetNamespace()+"/"+o.GetName())
		}
	}
	return names
}

// printOrder lists the copy order with each object's owners among the moved objects.
func printOrder(out io.Writer, plan *Plan) {
	byUID := make(map[types.UID]*unstructured.Unstructured, len(plan.Objects))
	for _, o := range plan.Objects {
		byUID[o.GetUID()] = o
	}
	fmt.Fprintf(out, "Dry run: would copy these %s in this order, then delete them from the source in the reverse order, Clusters last:\n",
		plural(len(plan.Objects), "object"))
	for i, o := range plan.Objects {
		var owners []string
		for _, ref := range o.GetOwnerReferences() {
			if owner, ok := byUID[ref.UID]; ok {
				owners = append(owners, owner.GetKind()+" "+owner.GetName())
			}
		}
		line := fmt.Sprintf("  %2d. %s %s", i+1, o.GetKind(), o.GetName())
		if len(owners) > 0 {
			line += " (owned by " + strings.Join(owners, ", ") + ")"
		}
		fmt.Fprintln(out, line)
	}
}
