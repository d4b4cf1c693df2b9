package move

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// FileName is the file an object is backed up to, as clusterctl names it:
// <Kind>_<namespace>_<name>.yaml.
func FileName(o *unstructured.Unstructured) string {
	return o.GetKind() + "_" + o.GetNamespace() + "_" + o.GetName() + ".yaml"
}

// backupFields are the server-owned metadata fields a backup file leaves out: none can be
// sent on create. The UID stays: owner references name their owner by it, so it is what
// the restore rebuilds the graph from (clusterctl's restore reads it the same way).
var backupFields = slices.DeleteFunc(slices.Clone(serverFields), func(f string) bool { return f == "uid" })

// BackupOf returns what the backup file of o holds: o without the fields the server owns
// (its UID kept), with its labels, annotations, finalizers, owner references, spec, data
// and status.
func BackupOf(o *unstructured.Unstructured) *unstructured.Unstructured {
	c := o.DeepCopy()
	for _, f := range backupFields {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	return c
}

// writeBackup writes the backup of o into dir under FileName, replacing a file of that name.
// It writes a hidden temporary file first and renames it, so a file under the final name is
// always whole; the mode is 0600, since Secrets are among the objects.
func writeBackup(dir string, o *unstructured.Unstructured) error {
	data, err := yaml.Marshal(BackupOf(o).Object)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", describe(o), err)
	}
	tmp, err := os.CreateTemp(dir, ".capstanctl-move-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, FileName(o)))
}

// backupFile is an object read from a backup directory with the file it came from.
type backupFile struct {
	path string
	obj  *unstructured.Unstructured
}

// readBackups reads every file of dir but hidden ones and subdirectories, each of which
// must hold one Kubernetes object with a UID. Every problem is listed in one error, each
// naming its file.
func readBackups(dir string) ([]backupFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading --from-directory: %w", err)
	}
	var files []backupFile
	var problems []string
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		o, err := readObject(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("file %s %v", path, err))
			continue
		}
		files = append(files, backupFile{path: path, obj: o})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n  - %s", ErrPreflight, strings.Join(problems, "\n  - "))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: directory %s holds no Kubernetes objects: pass the directory 'capstanctl move --to-directory' "+
			"(or 'clusterctl move --to-directory') wrote", ErrPreflight, dir)
	}
	return files, nil
}

// errNotObject says what a backup file must hold.
var errNotObject = errors.New("must hold one Kubernetes object with apiVersion, kind, metadata.name, metadata.namespace " +
	"(but for a cluster-scoped kind) and metadata.uid, as 'capstanctl move --to-directory' writes it")

// readObject reads the one object of the YAML or JSON file at path.
func readObject(path string) (*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %w", err)
	}
	if docs := bytes.Split(data, []byte("\n---")); len(docs) > 1 && len(bytes.TrimSpace(docs[1])) > 0 {
		return nil, fmt.Errorf("holds more than one YAML document: it %w", errNotObject)
	}
	// Through JSON, so numbers decode as int64 where they are integers, as the API server's do.
	doc, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("is not YAML (%v): it %w", err, errNotObject)
	}
	o := &unstructured.Unstructured{}
	if err := o.UnmarshalJSON(doc); err != nil {
		return nil, fmt.Errorf("is not a Kubernetes object (%v): it %w", err, errNotObject)
	}
	gv, err := schema.ParseGroupVersion(o.GetAPIVersion())
	if err != nil || o.GetAPIVersion() == "" || o.GetKind() == "" || o.GetName() == "" || o.GetUID() == "" {
		return nil, fmt.Errorf("is not a Kubernetes object as a backup holds it: it %w", errNotObject)
	}
	o.SetGroupVersionKind(gv.WithKind(o.GetKind()))
	return o, nil
}

// sameNamespaceOnce returns the namespace of the first file whose object is not global, a
// problem for each other object that is not global and outside it, and one for each object
// found in two files.
func sameNamespaceOnce(files []backupFile, global map[types.UID]bool) (string, []string) {
	var problems []string
	seen := map[string]string{}
	namespace, first := "", ""
	for _, f := range files {
		switch ns := f.obj.GetNamespace(); {
		case global[f.obj.GetUID()]:
		case first == "":
			namespace, first = ns, f.path
		case ns != namespace:
			problems = append(problems, fmt.Sprintf("file %s holds %s, not of namespace %s as file %s: restore one namespace at a time, "+
				"each from its own directory", f.path, describe(f.obj), namespace, first))
		}
		k := f.obj.GroupVersionKind().GroupKind().String() + " " + f.obj.GetNamespace() + "/" + f.obj.GetName()
		if first, dup := seen[k]; dup {
			problems = append(problems, fmt.Sprintf("file %s holds %s, as file %s does: remove one of them", f.path, describe(f.obj), first))
		}
		seen[k] = f.path
	}
	return namespace, problems
}
