package envtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// A pure unit test of the counting wrapper (fake client): which calls it counts.
func TestCallCounter_CountsReadsOfItsObjectAndWritesInItsNamespace(t *testing.T) {
	ctx := context.Background()
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "mine"}}
	c := &CallCounter{Key: client.ObjectKeyFromObject(mine), Type: &corev1.ConfigMap{}}
	cl := c.Wrap(fake.NewClientBuilder().Build())

	require.NoError(t, cl.Create(ctx, mine))
	require.NoError(t, cl.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "leftover"}}))
	require.NoError(t, cl.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}))
	require.NoError(t, cl.Get(ctx, client.ObjectKeyFromObject(mine), &corev1.ConfigMap{}))
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "other", Name: "leftover"}, &corev1.ConfigMap{}))
	require.Error(t, cl.Get(ctx, client.ObjectKeyFromObject(mine), &corev1.Secret{}), "another type under the same key")

	gets, writes := c.Snapshot()
	require.Equal(t, 1, gets, "only reads of the ConfigMap a/mine count, not other objects nor other types under its key")
	require.Equal(t, []string{"create *v1.ConfigMap mine", "create *v1.Node n1"}, writes, "another namespace's write is not counted; cluster-scoped ones are")
}

func TestCallCounter_CountsEventsAsWrites(t *testing.T) {
	c := &CallCounter{Key: client.ObjectKey{Namespace: "a", Name: "mine"}, Type: &corev1.ConfigMap{}}
	inner := &events.FakeRecorder{Events: make(chan string, 1)}
	r := c.WrapRecorder(inner)
	r.Eventf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "mine"}}, nil, "Normal", "SuccessfulCreate", "Create", "created %s", "m1")

	_, writes := c.Snapshot()
	require.Equal(t, []string{"event SuccessfulCreate *v1.ConfigMap mine"}, writes)
	require.Equal(t, "Normal SuccessfulCreate created m1", <-inner.Events, "passed on to the real recorder")
	require.Equal(t, 1, c.EventsRecorded("SuccessfulCreate", "mine"))
	require.Equal(t, 0, c.EventsRecorded("SuccessfulCreate", "min"), "the whole name")
	require.Equal(t, 0, c.EventsRecorded("Successful", "mine"), "the whole reason")
}
