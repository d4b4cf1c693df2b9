package mapping

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// DefaultStatusBatchWindow is how long an owner waits, after an event on one of the objects
// it summarises, before it reconciles: every further event in that window joins the same
// reconcile. A MachineDeployment of ten Machines created at once otherwise wrote its status
// about 33 times and the Cluster once per Machine event (`make bench`, docs/benchmarks.md);
// a second is short next to the time a Machine takes to become Running.
const DefaultStatusBatchWindow = time.Second

// EnqueueRequestsFromMapFuncBatched is handler.EnqueueRequestsFromMapFunc whose requests wait
// window in the queue. The queue keeps one entry per request and the earliest time it is due,
// so a burst of events on the objects an owner summarises (its Machines, say) makes one
// reconcile of the owner, and one status write, per window instead of one per event. Use it
// for watches that only feed an owner's summary or its next step, never for the owner's own
// object.
func EnqueueRequestsFromMapFuncBatched(fn handler.MapFunc, window time.Duration) handler.EventHandler {
	add := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		seen := map[reconcile.Request]bool{}
		for _, obj := range objs {
			for _, req := range fn(ctx, obj) {
				if !seen[req] {
					seen[req] = true
					q.AddAfter(req, window)
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.Object)
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.Object)
		},
	}
}
