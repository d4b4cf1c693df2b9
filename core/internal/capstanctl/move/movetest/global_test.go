package movetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/move"
)

// globalFixture is a namespace with a Cluster, and beside it what clusterctl moves although
// no namespace holds it: an identity (its CRD labelled move-hierarchy) with its credentials
// Secret in the infrastructure provider's namespace, and a cluster-scoped object labelled
// move; and what stays: another Secret of that namespace, an unlabelled cluster-scoped object.
type globalFixture struct {
	*fixture
	providerNS                string
	identity, creds, labelled *unstructured.Unstructured
	otherCreds, unlabelled    *unstructured.Unstructured
}

func newGlobalFixture(t *testing.T) *globalFixture {
	t.Helper()
	g := &globalFixture{fixture: &fixture{ns: source.CreateNamespace(t, "move-global"), pausedBefore: map[string]bool{}}}
	g.providerNS = source.CreateNamespace(t, "example-system")
	entry := clusterctl.InventoryEntry("infrastructure-example", "example", clusterctl.InfrastructureProvider, g.providerNS, "v0.1.0")
	require.NoError(t, source.Client.Create(context.Background(), entry))
	t.Cleanup(func() {
		for _, ns := range []string{g.ns, g.providerNS} {
			_ = target.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		}
	})
	g.identity = createObject(t, def{apiVersion: thirdPartyAPI, kind: "ExampleClusterIdentity", name: g.ns + "-identity",
		fields: map[string]any{"spec": map[string]any{"secretRef": "creds"}}}, "")
	g.creds = createObject(t, secretDef("creds", []*unstructured.Unstructured{g.identity}, nil, map[string]string{"key": "secret"}), g.providerNS)
	g.otherCreds = createObject(t, secretDef("other-creds", nil, nil, map[string]string{"key": "stays"}), g.providerNS)
	g.labelled = createObject(t, def{apiVersion: thirdPartyAPI, kind: "ExampleShared", name: g.ns + "-labelled",
		labels: map[string]string{move.MoveLabel: ""}, fields: map[string]any{"spec": map[string]any{"note": "moves"}}}, "")
	g.unlabelled = createObject(t, def{apiVersion: thirdPartyAPI, kind: "ExampleShared", name: g.ns + "-unlabelled",
		fields: map[string]any{"spec": map[string]any{"note": "stays"}}}, "")
	g.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", fields: map[string]any{"spec": clusterSpec("c1")}})
	return g
}

// createObject creates d in the source's namespace ns ("" for a cluster-scoped kind), deleted from
// both management clusters when the test ends.
func createObject(t *testing.T, d def, ns string) *unstructured.Unstructured {
	t.Helper()
	o := (&fixture{ns: ns}).create(t, false, d)
	t.Cleanup(func() {
		for _, c := range []client.Client{source.Client, target.Client} {
			_ = c.Delete(context.Background(), o.DeepCopy())
		}
	})
	return o
}

// requireShared checks that the target holds a copy of each shared object, the credentials
// owned by the identity's copy, and none of what stays.
func (g *globalFixture) requireShared(t *testing.T) {
	t.Helper()
	identity, err := read(target.Client, g.identity)
	require.NoError(t, err, "the identity in the target")
	creds, err := read(target.Client, g.creds)
	require.NoError(t, err, "the identity's Secret in the target, in the provider's namespace")
	require.Equal(t, g.creds.Object["data"], creds.Object["data"])
	require.Len(t, creds.GetOwnerReferences(), 1)
	require.Equal(t, identity.GetUID(), creds.GetOwnerReferences()[0].UID, "owned by the identity's copy")
	_, err = read(target.Client, g.labelled)
	require.NoError(t, err, "the cluster-scoped object labelled %s in the target", move.MoveLabel)
	for _, o := range []*unstructured.Unstructured{g.otherCreds, g.unlabelled} {
		_, err := read(target.Client, o)
		require.True(t, apierrors.IsNotFound(err), "%s stays out of the target: %v", key(o), err)
	}
}

// As clusterctl, move takes the cluster-scoped objects a move label selects, and what a
// move-hierarchy one owns in the infrastructure providers' namespaces: created in the target,
// kept unchanged (not paused, not deleted) in the source, as other namespaces' Clusters may use
// them; moving back finds them in the old source and uses them as they are.
func TestMove_TakesLabelledClusterScopedObjectsWithWhatTheyOwnAndKeepsThemInTheSource(t *testing.T) {
	g := newGlobalFixture(t)
	shared := snapshot(t, source.Client, []*unstructured.Unstructured{g.identity, g.creds, g.labelled, g.otherCreds, g.unlabelled})

	r := capstanctl(t, moveArgs(t, g.ns, "--dry-run")...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, ". Secret creds (owned by ExampleClusterIdentity "+g.identity.GetName()+")\n")
	require.NotContains(t, r.stdout, "unlabelled")
	require.NotContains(t, r.stdout, "other-creds")

	r = capstanctl(t, moveArgs(t, g.ns)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Kept in the source, as clusterctl keeps them (cluster-scoped, shared by other namespaces' Clusters): "+
		"ExampleClusterIdentity 1, ExampleShared 1, Secret 1\n")
	require.Contains(t, r.stdout, "Deleted 1 object from the source: Cluster 1\n")
	g.requireShared(t)
	requireUnchanged(t, shared)

	// Back: the old source holds the identity, its Secret and the labelled object already.
	r = capstanctl(t, "move", "--kubeconfig", kubeconfigFile(t, target), "--to-kubeconfig", kubeconfigFile(t, source), "-n", g.ns)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "(created 1, updated 0, unchanged 2)", "the Cluster created, the identity and the labelled object used as they are")
	requireUnchanged(t, shared)
	_, err := read(source.Client, g.moves[0])
	require.NoError(t, err, "the Cluster is back")
	g.requireShared(t)
}

// A backup holds the shared objects as files too (a cluster-scoped one without namespace, as
// clusterctl names it); the restore creates those the target lacks and leaves those it has.
func TestMoveDirectory_BacksUpAndRestoresLabelledClusterScopedObjects(t *testing.T) {
	g := newGlobalFixture(t)
	dir := t.TempDir()
	r := capstanctl(t, toDirectoryArgs(t, g.ns, dir)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	names := dirNames(t, dir)
	require.Contains(t, names, "ExampleClusterIdentity__"+g.identity.GetName()+".yaml")
	require.Contains(t, names, "Secret_"+g.providerNS+"_creds.yaml")
	require.NotContains(t, names, "Secret_"+g.providerNS+"_other-creds.yaml")
	got := readFile(t, filepath.Join(dir, "ExampleClusterIdentity__"+g.identity.GetName()+".yaml"))
	_, paused := got.GetAnnotations()[clusterv1.PausedAnnotation]
	require.False(t, paused, "a shared object is not paused")

	// The target already holds the labelled object, with other content: it is left as it is.
	present := g.labelled.DeepCopy()
	present.SetResourceVersion("")
	present.SetUID("")
	present.Object["spec"] = map[string]any{"note": "the target's own"}
	require.NoError(t, target.Client.Create(context.Background(), present))
	for range 2 { // a second run changes nothing
		r = capstanctl(t, fromDirectoryArgs(t, dir)...)
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		g.requireShared(t)
	}
	kept, err := read(target.Client, g.labelled)
	require.NoError(t, err)
	require.Equal(t, "the target's own", kept.Object["spec"].(map[string]any)["note"])
	_, err = read(target.Client, g.moves[0])
	require.NoError(t, err, "the Cluster is restored")
}
