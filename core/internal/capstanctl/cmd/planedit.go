package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// editForPlan lets the user edit the live object edit names and returns the file saved; "" when
// nothing changed (said so on c's output). cleanup removes the file.
func editForPlan(c *cobra.Command, cl client.Client, edit, namespace string) (path string, cleanup func(), err error) {
	cleanup = func() {}
	dir, err := os.MkdirTemp("", "capstanctl-plan-")
	if err != nil {
		return "", cleanup, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	path, changed, err := editedObjectFile(c, cl, edit, namespace, dir)
	if err != nil || changed {
		return path, cleanup, err
	}
	fmt.Fprintf(c.OutOrStdout(), "No change saved to %s: nothing to plan\n", edit)
	return "", cleanup, nil
}

// editedObjectFile fetches the object arg names (KIND/NAME, KIND as kubectl takes it: a kind or
// resource name, singular or plural, optionally .GROUP), writes it without its status and server
// metadata to a file in dir, lets the user's editor ($KUBE_EDITOR, else $EDITOR, else vi) change
// it on c's terminal, and returns the file's path; changed is false when the file was left as it was.
func editedObjectFile(c *cobra.Command, cl client.Client, arg, namespace, dir string) (path string, changed bool, err error) {
	ctx := c.Context()
	obj, err := getNamed(ctx, cl, arg, namespace)
	if err != nil {
		return "", false, err
	}
	for _, f := range [][]string{{"status"}, {"metadata", "managedFields"}, {"metadata", "resourceVersion"},
		{"metadata", "uid"}, {"metadata", "generation"}, {"metadata", "creationTimestamp"}} {
		unstructured.RemoveNestedField(obj.Object, f...)
	}
	data, err := yaml.Marshal(obj.Object)
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, strings.ToLower(obj.GetKind())+"-"+obj.GetName()+".yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", false, err
	}
	editor := os.Getenv("KUBE_EDITOR")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	// As kubectl edit: the editor variable may hold arguments, so a shell runs it.
	ed := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "editor", path)
	ed.Stdin, ed.Stdout, ed.Stderr = c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr()
	if err := ed.Run(); err != nil {
		return "", false, fmt.Errorf("the editor (%s) failed: %w; nothing was planned", editor, err)
	}
	edited, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	return path, !bytes.Equal(edited, data), nil
}

// getNamed reads the object named KIND/NAME in namespace (Cluster API kinds are namespaced).
func getNamed(ctx context.Context, cl client.Client, arg, namespace string) (*unstructured.Unstructured, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok || kind == "" || name == "" {
		return nil, fmt.Errorf("--edit %q: give KIND/NAME, such as machinedeployment/md-0", arg)
	}
	gvk, err := cl.RESTMapper().KindFor(schema.ParseGroupResource(strings.ToLower(kind)).WithVersion(""))
	if err != nil {
		return nil, fmt.Errorf("--edit %q: %w (name the kind with its group when two groups serve it: machinedeployments.cluster.x-k8s.io/%s)", arg, err, name)
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := cl.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		return nil, fmt.Errorf("--edit %q: reading %s %s/%s: %w", arg, gvk.Kind, namespace, name, err)
	}
	return obj, nil
}
