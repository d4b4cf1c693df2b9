package move

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ToDirectory backs up the Cluster API objects of opts.Namespace of source into dir, as
// upstream `clusterctl move --to-directory` does: discover them as Move does, pause them,
// write each one (status included) to its own file (FileName), then resume them. The
// source keeps every object and ends unpaused, but for the objects the user had paused
// before. The files carry the move's pause, so a restore creates the objects paused and
// resumes them once all exist. source must be uncached. dir must exist (as clusterctl
// requires); files of the same names are replaced.
func ToDirectory(ctx context.Context, source client.Client, dir string, opts Options) error {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("%w: --to-directory %s is not an existing directory: create it first", ErrPreflight, dir)
	}
	fmt.Fprintf(out, "Backing up the Cluster API objects of namespace %s of %s to directory %s\n", opts.Namespace, name(opts.SourceName), dir)
	plan, err := Discover(ctx, source, opts.Namespace)
	if err != nil {
		return err
	}
	if len(plan.Objects) == 0 {
		fmt.Fprintf(out, "Namespace %s of the source holds no Cluster API objects: nothing to back up\n", opts.Namespace)
		return nil
	}
	fmt.Fprintf(out, "Found %s in the source: %s\n", plural(len(plan.Objects), "object"), CountByKind(plan.Objects))
	if opts.DryRun {
		fmt.Fprintf(out, "Dry run: would pause the source, write these %s, then resume the source:\n", plural(len(plan.Objects), "file"))
		for i, o := range plan.Objects {
			fmt.Fprintf(out, "  %2d. %s\n", i+1, FileName(o))
		}
		fmt.Fprintln(out, "Dry run: nothing changed")
		return nil
	}

	paused, err := PauseSource(ctx, source, plan)
	if err != nil {
		return stillPaused(err)
	}
	fmt.Fprintf(out, "Paused in the source: %s (spec.paused), %s (annotation %s)\n",
		plural(paused.Clusters, "Cluster"), plural(paused.Objects, "object"), "cluster.x-k8s.io/paused")
	for _, o := range plan.Objects { // as PauseSource left them: the files carry the pause
		if err := writeBackup(dir, o); err != nil {
			return stillPaused(fmt.Errorf("writing %s to directory %s: %w", describe(o), dir, err))
		}
	}
	fmt.Fprintf(out, "Wrote %s to %s: %s\n", plural(len(plan.Objects), "file"), dir, CountByKind(plan.Objects))
	clusters, objects, err := ResumeCopies(ctx, source, plan.Objects)
	if err != nil {
		return stillPaused(err)
	}
	fmt.Fprintf(out, "Resumed in the source: %s, %s\n", plural(clusters, "Cluster"), plural(objects, "object"))
	if len(paused.Before) > 0 {
		fmt.Fprintf(out, "Paused before the backup, so they stay paused in the source and in a restore: %s\n", strings.Join(paused.Before, ", "))
	}
	fmt.Fprintf(out, "Backup complete: restore it with 'capstanctl move --from-directory %s --kubeconfig <target>'\n", dir)
	return nil
}

// stillPaused says what to do after a failure between the pause and the resume.
func stillPaused(err error) error {
	return fmt.Errorf("%w; the source may stay paused: run the same 'capstanctl move --to-directory' again, "+
		"which writes every file again and resumes the source", err)
}
