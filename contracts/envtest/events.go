package envtest

import (
	"context"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Events lists the events.k8s.io Events regarding obj (by UID) with reason, oldest first as
// the API server lists them.
func (e *Environment) Events(ctx context.Context, obj client.Object, reason string) ([]eventsv1.Event, error) {
	list := &eventsv1.EventList{}
	if err := e.Client.List(ctx, list, client.InNamespace(eventNamespace(obj))); err != nil {
		return nil, err
	}
	var out []eventsv1.Event
	for _, ev := range list.Items {
		if ev.Regarding.UID == obj.GetUID() && ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out, nil
}

// WaitForEvents waits until at least n Events regarding obj have reason (the recorder writes
// them asynchronously) and returns them.
func (e *Environment) WaitForEvents(t TB, timeout time.Duration, obj client.Object, reason string, n int) []eventsv1.Event {
	t.Helper()
	var got []eventsv1.Event
	WaitFor(t, timeout, "Event "+reason+" on "+obj.GetName(), func() (bool, error) {
		var err error
		got, err = e.Events(context.Background(), obj, reason)
		return len(got) >= n, err
	})
	return got
}

// eventNamespace is where the recorder puts an object's Events: its namespace, and "default"
// for a cluster-scoped object.
func eventNamespace(obj client.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns
	}
	return "default"
}
