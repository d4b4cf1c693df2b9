package patch_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// runningCluster stores a Cluster whose status says it is up: Available True, phase Provisioned.
func runningCluster(t *testing.T) *clusterv1.Cluster {
	t.Helper()
	cluster := newCluster(t)
	conditions.Set(cluster, conditions.True(clusterv1.AvailableCondition, clusterv1.AvailableReason, ""))
	conditions.Set(cluster, conditions.False(clusterv1.PausedCondition, clusterv1.NotPausedReason, ""))
	cluster.Status.Phase = string(clusterv1.ClusterPhaseProvisioned)
	require.NoError(t, env.Client.Status().Update(context.Background(), cluster))
	return cluster
}

func TestPatch_PausedObjectGetsOnlyItsPausedConditionWritten(t *testing.T) {
	ctx := context.Background()
	c, writes := countingClient(t)
	stored := runningCluster(t)

	cluster := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(stored), cluster))
	cluster.Spec.Paused = ptr.To(true)
	require.NoError(t, c.Update(ctx, cluster))
	writes.Store(0)

	h, err := patch.NewHelper(cluster, c)
	require.NoError(t, err)
	require.True(t, predicates.SetPausedCondition(cluster, cluster))
	// What a deferred status computation over an empty scope does.
	conditions.Set(cluster, conditions.False(clusterv1.AvailableCondition, clusterv1.NotAvailableReason, "nothing was read"))
	cluster.Status.Phase = string(clusterv1.ClusterPhasePending)
	cluster.Labels = map[string]string{"written-while-paused": "yes"}
	require.NoError(t, h.Patch(ctx, cluster))
	require.Equal(t, int32(1), writes.Load(), "one status write, for the Paused condition")

	got := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(stored), got))
	require.True(t, conditions.IsTrue(got, clusterv1.PausedCondition))
	require.True(t, conditions.IsTrue(got, clusterv1.AvailableCondition), "Available is kept")
	require.Equal(t, string(clusterv1.ClusterPhaseProvisioned), got.Status.Phase, "the phase is kept")
	require.Empty(t, got.Labels["written-while-paused"], "no metadata is written while paused")
	require.Equal(t, string(clusterv1.ClusterPhaseProvisioned), cluster.Status.Phase, "the caller's object says what is stored")

	// A steady paused object is not written again.
	h, err = patch.NewHelper(got, c)
	require.NoError(t, err)
	require.True(t, predicates.SetPausedCondition(got, got))
	conditions.Set(got, conditions.False(clusterv1.AvailableCondition, clusterv1.NotAvailableReason, "nothing was read"))
	require.NoError(t, h.Patch(ctx, got))
	require.Equal(t, int32(1), writes.Load(), "no write while it stays paused")
}

func TestPatch_ResumedObjectIsWrittenInFull(t *testing.T) {
	ctx := context.Background()
	stored := runningCluster(t)
	cluster := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(stored), cluster))
	conditions.Set(cluster, conditions.True(clusterv1.PausedCondition, clusterv1.PausedReason, "paused"))
	require.NoError(t, env.Client.Status().Update(ctx, cluster))

	h, err := patch.NewHelper(cluster, env.Client)
	require.NoError(t, err)
	require.False(t, predicates.SetPausedCondition(cluster, cluster))
	conditions.Set(cluster, conditions.False(clusterv1.AvailableCondition, clusterv1.NotAvailableReason, "recomputed"))
	require.NoError(t, h.Patch(ctx, cluster))

	got := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(stored), got))
	require.Equal(t, metav1.ConditionFalse, conditions.Get(got, clusterv1.PausedCondition).Status)
	require.Equal(t, metav1.ConditionFalse, conditions.Get(got, clusterv1.AvailableCondition).Status, "a resumed object's status is written")
}
