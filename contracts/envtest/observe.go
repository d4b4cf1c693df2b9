package envtest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Observe checks a "never" property on every change, not on samples: it lists list's kind in
// namespace, watches from exactly that state, and calls check with the objects (by name, as they
// are after the event; deleted ones removed) after each event. The first error check returns,
// or a watch that ends early, fails the test when stop is called (at the latest in the test's
// cleanup); stop waits for the events seen so far to be checked. Call stop before the test's own
// cleanup changes the objects.
func (e *Environment) Observe(t testing.TB, list client.ObjectList, namespace string, check func(map[string]client.Object) error) (stop func()) {
	t.Helper()
	ctx := context.Background()
	if err := e.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		t.Fatalf("listing to observe: %v", err)
	}
	world := map[string]client.Object{}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatalf("%v", err)
	}
	for _, item := range items {
		if o, ok := item.(client.Object); ok {
			world[o.GetName()] = o
		}
	}
	w, err := e.Client.Watch(ctx, list, client.InNamespace(namespace),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.GetResourceVersion()}})
	if err != nil {
		t.Fatalf("watching to observe: %v", err)
	}
	var (
		mu        sync.Mutex
		stopped   bool
		violation error
		done      = make(chan struct{})
	)
	go func() {
		defer close(done)
		events := 0
		for ev := range w.ResultChan() {
			o, ok := ev.Object.(client.Object)
			mu.Lock()
			switch {
			case violation != nil || stopped: // Stop makes the client report the closed stream as an error event
			case !ok || ev.Type == watch.Error:
				violation = fmt.Errorf("watch event %s %T: %v", ev.Type, ev.Object, ev.Object)
			default:
				events++
				if ev.Type == watch.Deleted {
					delete(world, o.GetName())
				} else {
					world[o.GetName()] = o
				}
				if err := check(world); err != nil {
					violation = fmt.Errorf("after event %d (%s %s): %w", events, ev.Type, o.GetName(), err)
				}
			}
			mu.Unlock()
		}
		mu.Lock()
		if !stopped && violation == nil {
			violation = fmt.Errorf("the watch ended after %d events, before the observation", events)
		}
		mu.Unlock()
	}()
	var once sync.Once
	stop = func() {
		t.Helper()
		once.Do(func() {
			mu.Lock()
			stopped = true
			mu.Unlock()
			w.Stop()
			<-done
			if violation != nil {
				t.Errorf("observed: %v", violation)
			}
		})
	}
	// A test that fails before calling stop still reports what was observed until then.
	t.Cleanup(stop)
	return stop
}
