package patch_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(envtest.Run(m, envtest.Options{}, &env)) }

// countingClient counts every write that reaches the API server.
func countingClient(t *testing.T) (client.Client, *atomic.Int32) {
	t.Helper()
	var writes atomic.Int32
	c := interceptor.NewClient(env.Client, interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			writes.Add(1)
			return c.Patch(ctx, obj, p, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			writes.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	})
	return c, &writes
}

func newCluster(t *testing.T) *clusterv1.Cluster {
	t.Helper()
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: env.CreateNamespace(t, "patch")},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "c1")},
	}
	require.NoError(t, env.Client.Create(context.Background(), c))
	return c
}

func TestPatch_NoWriteWhenNothingChanged(t *testing.T) {
	ctx := context.Background()
	c, writes := countingClient(t)
	cluster := newCluster(t)
	h, err := patch.NewHelper(cluster, c)
	require.NoError(t, err)
	conditions.Set(cluster, conditions.True(clusterv1.PausedCondition, clusterv1.NotPausedReason, ""))
	require.NoError(t, h.Patch(ctx, cluster))
	require.Equal(t, int32(1), writes.Load(), "the status change is written once")

	// Recomputing the same condition later (a new reconcile) changes nothing.
	fresh := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cluster), fresh))
	h, err = patch.NewHelper(fresh, c)
	require.NoError(t, err)
	conditions.Set(fresh, conditions.True(clusterv1.PausedCondition, clusterv1.NotPausedReason, ""))
	require.NoError(t, h.Patch(ctx, fresh))
	require.Equal(t, int32(1), writes.Load(), "an unchanged object is not written")
}

func TestPatch_WritesSpecAndStatusAndKeepsDesiredStatus(t *testing.T) {
	ctx := context.Background()
	c, writes := countingClient(t)
	cluster := newCluster(t)
	h, err := patch.NewHelper(cluster, c)
	require.NoError(t, err)

	cluster.Labels = map[string]string{"team": "a"}
	cluster.Spec.Paused = ptr.To(true)
	cluster.Status.Phase = "Provisioning"
	require.NoError(t, h.Patch(ctx, cluster))
	require.Equal(t, int32(2), writes.Load(), "one patch for metadata+spec, one for status")
	require.Equal(t, "Provisioning", cluster.Status.Phase, "the desired status survives the spec patch")

	got := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got))
	require.Equal(t, "a", got.Labels["team"])
	require.True(t, *got.Spec.Paused)
	require.Equal(t, "Provisioning", got.Status.Phase)
}

func TestPatch_ConflictsInsteadOfOverwritingAConcurrentMetadataWrite(t *testing.T) {
	ctx := context.Background()
	cluster := newCluster(t)
	h, err := patch.NewHelper(cluster, env.Client)
	require.NoError(t, err)

	// Someone else adds a finalizer after our read.
	other := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), other))
	other.Finalizers = append(other.Finalizers, "example.test/theirs")
	require.NoError(t, env.Client.Update(ctx, other))

	cluster.Finalizers = append(cluster.Finalizers, clusterv1.ClusterFinalizer)
	err = h.Patch(ctx, cluster)
	require.Error(t, err)
	require.True(t, apierrors.IsConflict(err), "got %v", err)

	got := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got))
	require.Equal(t, []string{"example.test/theirs"}, got.Finalizers, "their finalizer is not lost")
}

func TestPatch_UnstructuredObjectsKeepTheirResourceVersion(t *testing.T) {
	ctx := context.Background()
	cluster := newCluster(t)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("Cluster"))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), u))
	h, err := patch.NewHelper(u, env.Client)
	require.NoError(t, err)
	u.SetLabels(map[string]string{"adopted": "yes"})
	require.NoError(t, h.Patch(ctx, u), "the optimistic lock needs the snapshot's resourceVersion")
	require.NotEmpty(t, u.GetResourceVersion())
	require.NoError(t, h.Patch(ctx, u), "a second patch of the same helper works too")
}

func TestPatch_StatusConflictsInsteadOfDroppingAnotherControllersCondition(t *testing.T) {
	ctx := context.Background()
	cluster := newCluster(t)
	h, err := patch.NewHelper(cluster, env.Client)
	require.NoError(t, err)

	// Another controller sets its own condition after our read.
	other := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), other))
	conditions.Set(other, conditions.True("TheirCondition", "Theirs", ""))
	require.NoError(t, env.Client.Status().Update(ctx, other))

	conditions.Set(cluster, conditions.True("OurCondition", "Ours", ""))
	err = h.Patch(ctx, cluster)
	require.True(t, apierrors.IsConflict(err), "got %v", err)
	got := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got))
	require.NotNil(t, conditions.Get(got, "TheirCondition"), "their condition is not lost")
}

// A reconcile that changes spec and sets status.observedGeneration (and its conditions'
// observedGeneration) to the generation it read writes the generation its own spec patch
// created: otherwise the next reconcile writes status again only to catch up.
func TestPatch_ObservedGenerationFollowsTheOwnSpecWrite(t *testing.T) {
	ctx := context.Background()
	c, writes := countingClient(t)
	cluster := newCluster(t)
	h, err := patch.NewHelper(cluster, c)
	require.NoError(t, err)
	gen := cluster.Generation

	cluster.Spec.Paused = ptr.To(true)
	cluster.Status.ObservedGeneration = gen
	conditions.Set(cluster, conditions.True("Computed", "FromThisSpec", ""))
	require.NoError(t, h.Patch(ctx, cluster))
	require.Equal(t, int32(2), writes.Load())

	got := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got))
	require.Greater(t, got.Generation, gen, "the spec patch created a generation")
	require.Equal(t, got.Generation, got.Status.ObservedGeneration)
	require.Equal(t, got.Generation, conditions.Get(got, "Computed").ObservedGeneration, "conditions observe it too")

	// The next reconcile computes the same status: nothing to write.
	h, err = patch.NewHelper(got, c)
	require.NoError(t, err)
	got.Status.ObservedGeneration = got.Generation
	conditions.Set(got, conditions.True("Computed", "FromThisSpec", ""))
	require.NoError(t, h.Patch(ctx, got))
	require.Equal(t, int32(2), writes.Load())
}

// A write is followed by reads through the helper's client until its cache shows the written
// version: the next reconcile would otherwise patch the stale version and get a conflict.
func TestPatch_ReturnsOnceItsClientsCacheShowsTheWrite(t *testing.T) {
	ctx := context.Background()
	cluster := newCluster(t)
	stale := cluster.DeepCopy()
	var reads atomic.Int32
	lagging := interceptor.NewClient(env.Client, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if reads.Add(1) < 3 { // a cache that has not seen the write yet, twice
				stale.DeepCopyInto(obj.(*clusterv1.Cluster))
				return nil
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	h, err := patch.NewHelper(cluster, lagging)
	require.NoError(t, err)
	conditions.Set(cluster, conditions.True("Seen", "Seen", ""))
	require.NoError(t, h.Patch(ctx, cluster))
	require.Equal(t, int32(3), reads.Load(), "read until the cache showed the write, then stopped")
}
