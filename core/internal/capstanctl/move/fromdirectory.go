package move

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/components"
)

// FromDirectory restores into target the objects ToDirectory (or clusterctl's
// --to-directory) wrote into dir, as upstream `clusterctl move --from-directory` does:
// owners first, owner references pointing at the new objects' UIDs, then their status,
// then it resumes what the backup paused. Before any write it refuses, naming the file,
// a directory holding no object, a file that is not one object as a backup holds it, an
// object of a kind the target does not serve, and an object the target already holds that
// was not restored from the same backup. Running it again with the objects restored
// changes nothing; after an interruption it finishes the restore.
func FromDirectory(ctx context.Context, target client.Client, dir string, opts Options) error {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	if opts.InitCommand == "" {
		opts.InitCommand = "capstanctl init --kubeconfig <target kubeconfig>"
	}
	files, err := readBackups(dir)
	if err != nil {
		return err
	}
	plan, err := restorePlan(ctx, target, files, opts.InitCommand)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Restoring %s of namespace %s from directory %s into %s: %s\n", plural(len(plan.Objects), "object"),
		plan.Namespace, dir, name(opts.TargetName), CountByKind(plan.Objects))
	t, err := Preflight(ctx, target, plan, opts.InitCommand)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Preflight passed: the target serves all %s; %s restored by an earlier run\n",
		plural(len(plan.CRDs), "Cluster API kind"), plural(len(t.Copies), "object"))
	if opts.DryRun {
		printRestoreOrder(out, plan, files)
		fmt.Fprintln(out, "Dry run: nothing changed")
		return nil
	}
	copied, err := CopyToTarget(ctx, target, plan, t)
	if err != nil {
		return unfinishedRestore(err)
	}
	fmt.Fprintf(out, "Restored %s: %s (created %d, updated %d, already present and unchanged %d)\n", plural(len(copied.Copies), "object"),
		CountByKind(copied.Copies), copied.Created, copied.Updated, copied.Unchanged)
	clusters, objects, err := ResumeCopies(ctx, target, copied.Copies)
	if err != nil {
		return unfinishedRestore(err)
	}
	fmt.Fprintf(out, "Resumed in the target: %s, %s\n", plural(clusters, "Cluster"), plural(objects, "object"))
	fmt.Fprintln(out, "Restore complete")
	return nil
}

func unfinishedRestore(err error) error {
	return fmt.Errorf("%w; run the same 'capstanctl move --from-directory' again to finish the restore", err)
}

// restorePlan orders the objects of files owners first and names the target's CRD of
// each Cluster API kind among them. Before anything is written, it refuses, naming each
// file, an object whose kind or version the target does not serve and an object the
// target holds that no earlier restore of the same backup created.
func restorePlan(ctx context.Context, target client.Reader, files []backupFile, initCommand string) (*Plan, error) {
	crds, err := listCRDs(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("reading the CustomResourceDefinitions of the target management cluster (--kubeconfig): %w", err)
	}
	plan := &Plan{CRDs: map[schema.GroupVersionKind]string{}}
	var problems []string
	objs := make([]*unstructured.Unstructured, 0, len(files))
	for _, f := range files {
		objs = append(objs, f.obj)
		gvk := f.obj.GroupVersionKind()
		if slices.Contains(attachedKinds, gvk) {
			continue
		}
		crd, problem := servingCRD(crds, gvk, initCommand)
		if problem != "" {
			problems = append(problems, fmt.Sprintf("file %s holds %s: %s", f.path, describe(f.obj), problem))
			continue
		}
		plan.CRDs[gvk] = crd
	}
	if plan.Objects, err = Order(objs); err != nil {
		return nil, err
	}
	markGlobal(plan)
	var namespaceProblems []string
	plan.Namespace, namespaceProblems = sameNamespaceOnce(files, plan.Global)
	problems = append(namespaceProblems, problems...)
	if len(problems) == 0 {
		if problems, err = presentInTarget(ctx, target, files, plan.Global); err != nil {
			return nil, err
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n  - %s", ErrPreflight, strings.Join(problems, "\n  - "))
	}
	return plan, nil
}

// servingCRD returns the name of the target's CRD serving gvk, or what is wrong.
func servingCRD(crds map[string]*apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind, initCommand string) (string, string) {
	if gvk.Group == "" {
		return "", fmt.Sprintf("kind %s is not one a backup holds (only Cluster API kinds, Secrets and ConfigMaps): remove the file", gvk.Kind)
	}
	for _, crd := range sortedCRDs(crds) {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		var served []string
		for _, v := range crd.Spec.Versions {
			if v.Name == gvk.Version && v.Served {
				return crd.Name, ""
			}
			if v.Served {
				served = append(served, v.Name)
			}
		}
		return "", fmt.Sprintf("the target serves kind %s at %s, not at %s: install the version of %s the backup was taken with ('%s')",
			gvk.Kind, strings.Join(served, ", "), gvk.Version, providerOf(gvk.GroupKind()), initCommand)
	}
	return "", fmt.Sprintf("the target does not serve kind %s (group %s): install %s first with '%s'",
		gvk.Kind, gvk.Group, providerOf(gvk.GroupKind()), initCommand)
}

// providerOf names the provider whose CRDs serve gk: one of capstanctl init's, or any.
func providerOf(gk schema.GroupKind) string {
	for _, p := range components.All {
		objs, err := p.Objects()
		if err != nil {
			continue
		}
		for _, o := range objs {
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			if o.GetKind() == "CustomResourceDefinition" && group == gk.Group && kind == gk.Kind {
				return fmt.Sprintf("provider %s (capstanctl init --providers %s)", p.Module, p.Name)
			}
		}
	}
	return "the provider that serves group " + gk.Group
}

// presentInTarget returns a problem for each object of files but the global ones the target
// already holds that is not a restore of the same object (MovedFromUIDAnnotation holding its
// UID): the restore never overwrites an object it did not create.
func presentInTarget(ctx context.Context, target client.Reader, files []backupFile, global map[types.UID]bool) ([]string, error) {
	var problems []string
	for _, f := range files {
		if global[f.obj.GetUID()] {
			continue // shared: one the target has is used as it is
		}
		got, err := get(ctx, target, f.obj)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading %s in the target management cluster: %w", describe(f.obj), err)
		case got.GetUID() == f.obj.GetUID():
			problems = append(problems, fmt.Sprintf("file %s holds %s, which the target holds with the same UID: the target is the "+
				"cluster the backup was taken from, and the object is still there: nothing to restore", f.path, describe(f.obj)))
		case got.GetAnnotations()[MovedFromUIDAnnotation] != string(f.obj.GetUID()):
			problems = append(problems, fmt.Sprintf("file %s holds %s, which already exists in the target and was not restored from "+
				"this backup: delete it from the target or restore into another management cluster", f.path, describe(f.obj)))
		}
	}
	return problems, nil
}

// printRestoreOrder lists the files in the order their objects would be created.
func printRestoreOrder(out io.Writer, plan *Plan, files []backupFile) {
	path := make(map[*unstructured.Unstructured]string, len(files))
	for _, f := range files {
		path[f.obj] = f.path
	}
	fmt.Fprintf(out, "Dry run: would create these %s in this order, then resume them:\n", plural(len(plan.Objects), "object"))
	for i, o := range plan.Objects {
		fmt.Fprintf(out, "  %2d. %s %s (%s)\n", i+1, o.GetKind(), o.GetName(), path[o])
	}
}
