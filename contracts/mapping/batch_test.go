package mapping

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestEnqueueRequestsFromMapFuncBatched_ABurstOfEventsMakesOneRequestAfterTheWindow(t *testing.T) {
	owner := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "md"}}
	toOwner := func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{owner} }
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	h := EnqueueRequestsFromMapFuncBatched(toOwner, 300*time.Millisecond)

	ctx := context.Background()
	m := func(name string) *clusterv1.Machine {
		return &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	}
	start := time.Now()
	h.Create(ctx, event.CreateEvent{Object: m("a")}, q)
	for range 5 {
		h.Update(ctx, event.UpdateEvent{ObjectOld: m("a"), ObjectNew: m("a")}, q)
	}
	h.Delete(ctx, event.DeleteEvent{Object: m("b")}, q)
	h.Generic(ctx, event.GenericEvent{Object: m("c")}, q)
	require.Zero(t, q.Len(), "nothing is due before the window has passed")

	require.Eventually(t, func() bool { return q.Len() > 0 }, 5*time.Second, 10*time.Millisecond)
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	require.Equal(t, 1, q.Len(), "every event of the window joined one request")
	got, _ := q.Get()
	require.Equal(t, owner, got)
	q.Done(got)
}
