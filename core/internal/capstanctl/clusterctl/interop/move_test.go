//go:build clusterctl

/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package interop

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
)

// Upstream clusterctl's move takes a Capstan Cluster and everything it owns from one management
// cluster to another holding Capstan's release, and deletes it from the source; a backup of the
// target written by --to-directory, restored by --from-directory into the source, brings it
// back there. clusterctl finds Capstan's kinds by the clusterctl label of their CRDs and
// creates each object from its spec, labels and owner references (the owners' new UIDs); the
// status the providers wrote stays behind, since clusterctl writes no status subresource and
// leaves it to the target's controllers (capstanctl move copies it).
func TestClusterctl_MovesACapstanClusterToAnotherManagementClusterAndThroughADirectory(t *testing.T) {
	config := writeRelease(t, t.TempDir(), version)
	target := startManagementCluster(t)
	sourceKC, targetKC := capstanctlInit(t, env), capstanctlInit(t, target)
	w := newWorkload(t, env)
	home := t.TempDir()

	_, err := runClusterctl(t, home, "move", "-n", w.ns, "--config", config, "--kubeconfig", sourceKC, "--to-kubeconfig", targetKC)
	require.NoError(t, err)
	requireArrived(t, w, target)
	for _, o := range w.objs {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), o.DeepCopy())
		require.True(t, apierrors.IsNotFound(err), "%s %s left the source: %v", o.GetKind(), o.GetName(), err)
	}

	// clusterctl moves, or backs up, a Cluster only once its infrastructure is provisioned, its
	// control plane initialized and its Machines have Nodes: the target's controllers write that
	// status again after a move. None run on envtest; the test writes it as they would.
	w.writeStatus(t, target)
	dir := t.TempDir()
	_, err = runClusterctl(t, home, "move", "--to-directory", dir, "-n", w.ns, "--config", config, "--kubeconfig", targetKC)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files, want []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	for _, o := range w.objs {
		want = append(want, o.GetKind()+"_"+w.ns+"_"+o.GetName()+".yaml")
	}
	require.ElementsMatch(t, want, files)

	_, err = runClusterctl(t, home, "move", "--from-directory", dir, "--config", config, "--to-kubeconfig", sourceKC)
	require.NoError(t, err)
	requireArrived(t, w, env)
	for _, o := range w.objs {
		got := o.DeepCopy()
		require.NoError(t, target.Client.Get(context.Background(), client.ObjectKeyFromObject(o), got),
			"--to-directory deletes nothing: %s %s", o.GetKind(), o.GetName())
		paused, _, _ := unstructured.NestedBool(got.Object, "spec", "paused")
		require.False(t, paused, "--to-directory resumed %s %s after writing it", o.GetKind(), o.GetName())
	}
}

// requireArrived checks that e holds every object of w as clusterctl creates it: what the
// source held but status (a Cluster's spec.paused aside: false, the Cluster resumed), the
// same labels, and owner references naming the same owners by their UIDs in e.
func requireArrived(t *testing.T, w *workload, e *envtest.Environment) {
	t.Helper()
	for _, o := range w.objs {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(o.GroupVersionKind())
		require.NoError(t, e.Client.Get(context.Background(), client.ObjectKeyFromObject(o), got), "%s %s", o.GetKind(), o.GetName())
		what := o.GetKind() + " " + o.GetName()
		if o.GetKind() == "Cluster" {
			paused, _, _ := unstructured.NestedBool(got.Object, "spec", "paused")
			require.False(t, paused, "clusterctl resumed %s", what)
		}
		require.Equal(t, content(o), content(got), what)
		require.Equal(t, o.GetLabels(), got.GetLabels(), what)
		require.Empty(t, got.Object["status"], "%s: clusterctl does not write status", what)
		require.Len(t, got.GetOwnerReferences(), len(o.GetOwnerReferences()), what)
		for i, ref := range o.GetOwnerReferences() {
			owner := &unstructured.Unstructured{}
			owner.SetAPIVersion(ref.APIVersion)
			owner.SetKind(ref.Kind)
			require.NoError(t, e.Client.Get(context.Background(), client.ObjectKey{Namespace: w.ns, Name: ref.Name}, owner))
			ref.UID = owner.GetUID()
			require.Equal(t, ref, got.GetOwnerReferences()[i], what)
		}
	}
}

// content is what clusterctl carries of o besides its metadata: every top-level field but
// status, and no spec.paused (the move's pause mark).
func content(o *unstructured.Unstructured) map[string]any {
	c := o.DeepCopy().Object
	delete(c, "metadata")
	delete(c, "status")
	unstructured.RemoveNestedField(c, "spec", "paused")
	return c
}
