package movetest

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/move"
)

// blockMove sets or removes clusterctl's block-move annotation on the fixture's worker
// DockerMachine in the source, as its provider would.
func blockMove(t *testing.T, f *fixture, set bool) *unstructured.Unstructured {
	t.Helper()
	dm := &unstructured.Unstructured{}
	dm.SetAPIVersion(infraAPI)
	dm.SetKind("DockerMachine")
	dm.SetNamespace(f.ns)
	dm.SetName("c1-md-x-a")
	envtest.Update(t, source.Client, dm, func() {
		a := dm.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		if set {
			a[move.BlockMoveAnnotation] = "true"
		} else {
			delete(a, move.BlockMoveAnnotation)
		}
		dm.SetAnnotations(a)
	})
	return dm
}

// TestMove_WaitsForTheBlockMoveAnnotationToGo: as upstream clusterctl, an object carrying
// clusterctl.cluster.x-k8s.io/block-move holds the copy until its provider, having seen the
// object paused, removes the annotation: nothing is created in the target before that (seen on
// every create), and the move then completes.
func TestMove_WaitsForTheBlockMoveAnnotationToGo(t *testing.T) {
	f := newFixture(t)
	dm := blockMove(t, f, true)
	var unblocked atomic.Bool
	var early []string
	dst := interceptor.NewClient(target.Client, interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if !unblocked.Load() {
				early = append(early, obj.GetObjectKind().GroupVersionKind().Kind+"/"+obj.GetName())
			}
			return cl.Create(ctx, obj, opts...)
		},
	})
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- move.Move(context.Background(), source.Client, dst, move.Options{Namespace: f.ns, Out: &out})
	}()

	envtest.WaitFor(t, time.Minute, "the DockerMachine paused by the move", func() (bool, error) {
		err := source.Client.Get(t.Context(), client.ObjectKeyFromObject(dm), dm)
		_, paused := dm.GetAnnotations()[clusterv1.PausedAnnotation]
		return err == nil && paused, err
	})
	unblocked.Store(true)
	blockMove(t, f, false)
	select {
	case err := <-done:
		require.NoError(t, err, out.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("the move did not end after the block-move annotation went")
	}
	require.Empty(t, early, "nothing is copied while an object carries the block-move annotation")
	require.Contains(t, out.String(), "Carrying clusterctl.cluster.x-k8s.io/block-move, to wait for once the source is paused: DockerMachine "+f.ns+"/c1-md-x-a\n")
	require.Contains(t, out.String(), "No object carries clusterctl.cluster.x-k8s.io/block-move any more\n")
	moved, err := read(target.Client, dm)
	require.NoError(t, err)
	require.NotContains(t, moved.GetAnnotations(), move.BlockMoveAnnotation)
}

// TestMove_ABlockMoveAnnotationThatStaysFailsNamingTheObject: after the wait the move fails
// naming the object and the annotation, with nothing in the target and the source paused;
// once the annotation is gone, running the move again completes it.
func TestMove_ABlockMoveAnnotationThatStaysFailsNamingTheObject(t *testing.T) {
	f := newFixture(t)
	blockMove(t, f, true)
	err := move.Move(context.Background(), source.Client, target.Client, move.Options{Namespace: f.ns, BlockMoveTimeout: 2 * time.Second})
	require.ErrorContains(t, err, "DockerMachine "+f.ns+"/c1-md-x-a still carries annotation clusterctl.cluster.x-k8s.io/block-move after 2s: its provider has not finished with it")
	require.ErrorContains(t, err, "nothing was deleted from the source, which stays paused: run the same 'capstanctl move' again")
	requireNothingInTarget(t, f.moves)
	c1 := &clusterv1.Cluster{}
	require.NoError(t, source.Client.Get(t.Context(), client.ObjectKey{Namespace: f.ns, Name: "c1"}, c1))
	require.True(t, c1.Spec.Paused != nil && *c1.Spec.Paused, "the source stays paused")

	blockMove(t, f, false)
	require.NoError(t, move.Move(context.Background(), source.Client, target.Client, move.Options{Namespace: f.ns}))
	moved := &clusterv1.Cluster{}
	require.NoError(t, target.Client.Get(t.Context(), client.ObjectKey{Namespace: f.ns, Name: "c1"}, moved))
	require.False(t, moved.Spec.Paused != nil && *moved.Spec.Paused, "resumed in the target")
}
