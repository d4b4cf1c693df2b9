package movetest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/capstanctl/move"
)

// toDirectoryArgs back namespace ns of the source up into dir.
func toDirectoryArgs(t *testing.T, ns, dir string, extra ...string) []string {
	t.Helper()
	return append([]string{"move", "--kubeconfig", kubeconfigFile(t, source), "-n", ns, "--to-directory", dir}, extra...)
}

// fromDirectoryArgs restore dir into the target.
func fromDirectoryArgs(t *testing.T, dir string, extra ...string) []string {
	t.Helper()
	return append([]string{"move", "--kubeconfig", kubeconfigFile(t, target), "--from-directory", dir}, extra...)
}

func readFile(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc, err := yaml.YAMLToJSON(data)
	require.NoError(t, err, "%s", path)
	o := &unstructured.Unstructured{}
	require.NoError(t, o.UnmarshalJSON(doc), "%s", path)
	return o
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// withoutPaused is topLevel(o) without spec.paused.
func withoutPaused(o *unstructured.Unstructured) map[string]any {
	m := topLevel(o)
	unstructured.RemoveNestedField(m, "spec", "paused")
	return m
}

func TestMoveToDirectory_WritesOneFilePerObjectWithStatusAndLeavesTheSourceRunning(t *testing.T) {
	f := newFixture(t)
	before := snapshot(t, source.Client, f.moves)
	dir := t.TempDir()

	r := capstanctl(t, toDirectoryArgs(t, f.ns, dir, "--dry-run")...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Dry run: would pause the source, write these 24 files, then resume the source:\n")
	require.Contains(t, r.stdout, "Cluster_"+f.ns+"_c1.yaml\n")
	require.Empty(t, dirNames(t, dir), "a dry run writes nothing")
	requireUnchanged(t, before)

	r = capstanctl(t, toDirectoryArgs(t, f.ns, dir)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	t.Logf("capstanctl move --to-directory:\n%s", r.stdout)
	for _, want := range []string{
		"Paused in the source: 1 Cluster (spec.paused), 13 objects (annotation cluster.x-k8s.io/paused)\n",
		"Wrote 24 files to " + dir + ": Cluster 2, ConfigMap 1,",
		"Resumed in the source: 1 Cluster, 13 objects\n",
		"Paused before the backup, so they stay paused in the source and in a restore: Cluster " + f.ns + "/c2, DockerMachineTemplate " + f.ns + "/c1-md\n",
	} {
		require.Contains(t, r.stdout, want)
	}

	var wantNames []string
	for _, o := range f.moves {
		wantNames = append(wantNames, o.GetKind()+"_"+f.ns+"_"+o.GetName()+".yaml")
	}
	slices.Sort(wantNames)
	require.Equal(t, wantNames, dirNames(t, dir), "one file per object, named as clusterctl names them")

	for k, src := range before {
		file := readFile(t, filepath.Join(dir, move.FileName(src)))
		for _, field := range []string{"resourceVersion", "managedFields", "creationTimestamp", "generation"} {
			_, found, _ := unstructured.NestedFieldNoCopy(file.Object, "metadata", field)
			require.False(t, found, "%s: the file has no metadata.%s", k, field)
		}
		require.Equal(t, src.GetUID(), file.GetUID(), "%s: the file keeps the UID owner references name it by", k)
		require.Empty(t, cmp.Diff(src.GetOwnerReferences(), file.GetOwnerReferences()), "%s: owner references", k)
		require.Empty(t, cmp.Diff(src.Object["status"], file.Object["status"]), "%s: the status is in the file (-source +file)", k)
		require.Empty(t, cmp.Diff(withoutPaused(src), withoutPaused(file)), "%s: spec/data (-source +file)", k)
		require.Equal(t, src.GetLabels(), file.GetLabels(), "%s: labels", k)
		if src.GetKind() == "Cluster" {
			paused, _, _ := unstructured.NestedBool(file.Object, "spec", "paused")
			require.True(t, paused, "%s: the file holds the Cluster paused, so a restore creates it paused", k)
		}

		got, err := read(source.Client, src)
		require.NoError(t, err, "%s stays in the source", k)
		require.Empty(t, cmp.Diff(withoutPaused(src), withoutPaused(got)), "%s: unchanged in the source", k)
		require.Empty(t, cmp.Diff(src.Object["status"], got.Object["status"]), "%s: status unchanged in the source", k)
		require.Equal(t, src.GetAnnotations(), got.GetAnnotations(), "%s: the source ends unpaused but for the user's pauses", k)
		if src.GetKind() == "Cluster" {
			paused, _, _ := unstructured.NestedBool(got.Object, "spec", "paused")
			require.Equal(t, f.pausedBefore[key(src)], paused, "%s: spec.paused in the source is what it was before", k)
		}
	}
	requireNothingInTarget(t, f.moves)
}

func TestMoveFromDirectory_RestoresTheGraphIntoAnEmptyTargetAndASecondRunChangesNothing(t *testing.T) {
	f := newFixture(t)
	before := snapshot(t, source.Client, f.moves)
	dir := t.TempDir()
	r := capstanctl(t, toDirectoryArgs(t, f.ns, dir)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	r = capstanctl(t, fromDirectoryArgs(t, dir, "--dry-run")...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Dry run: would create these 24 objects in this order, then resume them:\n   1. Cluster c1 (")
	requireNothingInTarget(t, f.moves)

	r = capstanctl(t, fromDirectoryArgs(t, dir)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	t.Logf("capstanctl move --from-directory:\n%s", r.stdout)
	for _, want := range []string{
		"Restoring 24 objects of namespace " + f.ns + " from directory " + dir + " into https://127.0.0.1:",
		"Preflight passed: the target serves all 10 Cluster API kinds; 0 objects restored by an earlier run\n",
		"Restored 24 objects: Cluster 2, ConfigMap 1, DockerCluster 2, DockerMachine 2, DockerMachineTemplate 2, KubeadmConfig 2, " +
			"KubeadmConfigTemplate 1, KubeadmControlPlane 1, Machine 2, MachineDeployment 1, MachineSet 1, Secret 7 " +
			"(created 24, updated 0, already present and unchanged 0)\n",
		"Resumed in the target: 1 Cluster, 13 objects\n",
	} {
		require.Contains(t, r.stdout, want)
	}
	requireCopies(t, f, before)

	restored := snapshot(t, target.Client, f.moves)
	r = capstanctl(t, fromDirectoryArgs(t, dir)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "24 objects restored by an earlier run\n")
	require.Contains(t, r.stdout, "(created 0, updated 0, already present and unchanged 24)\n")
	require.Contains(t, r.stdout, "Resumed in the target: 0 Clusters, 0 objects\n")
	for k, o := range restored {
		got, err := read(target.Client, o)
		require.NoError(t, err)
		require.Equal(t, o.GetResourceVersion(), got.GetResourceVersion(), "%s: a second restore changes nothing", k)
	}
}

func TestMoveFromDirectory_RefusesBeforeAnyWriteNamingTheFile(t *testing.T) {
	f := &fixture{ns: source.CreateNamespace(t, "restore"), pausedBefore: map[string]bool{}}
	t.Cleanup(func() {
		_ = client.IgnoreNotFound(target.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}))
	})
	cluster := f.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", fields: map[string]any{"spec": clusterSpec("c1")}})
	f.create(t, true, def{apiVersion: infraAPI, kind: "DockerCluster", name: "c1", owners: []*unstructured.Unstructured{cluster},
		fields: map[string]any{"spec": map[string]any{}}})
	f.create(t, true, secretDef("c1-kubeconfig", nil, map[string]string{clusterv1.ClusterNameLabel: "c1"}, map[string]string{"value": "x"}))
	backup := t.TempDir()
	r := capstanctl(t, toDirectoryArgs(t, f.ns, backup)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	object := func(apiVersion, kind, name string) string {
		return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: " + f.ns + "\n  uid: u-1234\nspec: {}\n"
	}
	for _, tc := range []struct {
		name string
		// file is written into a copy of the backup, under the case's name; "" empties the copy.
		file, content string
		// inTarget is created in the target first.
		inTarget bool
		want     string
	}{
		{"empty directory", "", "", false, "holds no Kubernetes objects: pass the directory 'capstanctl move --to-directory'"},
		{"not an object", "notes.txt", "backed up on Monday\n", false, "notes.txt is not a Kubernetes object ("},
		{"no kind", "notes.yaml", "note: backed up on Monday\n", false, "notes.yaml is not a Kubernetes object (Object 'Kind' is missing"},
		{"unserved kind", "AWSMachine_x_m.yaml", object("infrastructure.cluster.x-k8s.io/v1beta2", "AWSMachine", "m"), false,
			"AWSMachine_x_m.yaml holds AWSMachine " + f.ns + "/m: the target does not serve kind AWSMachine (group infrastructure.cluster.x-k8s.io): " +
				"install the provider that serves group infrastructure.cluster.x-k8s.io first with 'capstanctl init --kubeconfig "},
		{"unserved version", "DockerMachine_x_m.yaml", object("infrastructure.cluster.x-k8s.io/v1alpha9", "DockerMachine", "m"), false,
			"the target serves kind DockerMachine at v1beta1, v1beta2, not at v1alpha9: install the version of provider infrastructure-docker " +
				"(capstanctl init --providers docker) the backup was taken with"},
		{"present with other content", "", "", true, "Secret_" + f.ns + "_c1-kubeconfig.yaml holds Secret " + f.ns + "/c1-kubeconfig, " +
			"which already exists in the target and was not restored from this backup: delete it from the target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" || tc.inTarget {
				require.NoError(t, os.CopyFS(dir, os.DirFS(backup)))
			}
			if tc.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o600))
			}
			var present *unstructured.Unstructured
			objs := f.moves
			if tc.inTarget {
				require.NoError(t, client.IgnoreAlreadyExists(target.Client.Create(context.Background(),
					&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}})))
				present = &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{"value": "b3RoZXI="}}}
				present.SetAPIVersion("v1")
				present.SetKind("Secret")
				present.SetNamespace(f.ns)
				present.SetName("c1-kubeconfig")
				require.NoError(t, target.Client.Create(context.Background(), present))
				t.Cleanup(func() { _ = target.Client.Delete(context.Background(), present) })
				objs = f.moves[:2]
			}
			r := capstanctl(t, fromDirectoryArgs(t, dir)...)
			require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stderr, tc.want)
			require.Contains(t, r.stderr, move.ErrPreflight.Error())
			requireNothingInTarget(t, objs)
			if present != nil {
				got, err := read(target.Client, present)
				require.NoError(t, err)
				require.Equal(t, present.GetResourceVersion(), got.GetResourceVersion(), "the Secret in the way is unchanged")
			}
		})
	}
}

func TestMove_DirectoryFlagsExcludeEachOtherAndTheTargetKubeconfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"move", "--to-directory", dir, "--from-directory", dir}, "--from-directory and --to-directory exclude each other"},
		{[]string{"move", "--to-directory", dir, "--to-kubeconfig", kubeconfigFile(t, target)}, "--to-directory and --to-kubeconfig exclude each other"},
		{[]string{"move", "--from-directory", dir, "--to-kubeconfig", kubeconfigFile(t, target)}, "--from-directory and --to-kubeconfig exclude each other"},
		{toDirectoryArgs(t, "default", filepath.Join(dir, "missing")), "--to-directory " + filepath.Join(dir, "missing") + " is not an existing directory"},
	} {
		r := capstanctl(t, tc.args...)
		require.Equal(t, 1, r.code, "%v: %s", tc.args, r.stdout)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}
