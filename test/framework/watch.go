package framework

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// KindWatch holds a watch per kind on one namespace, from the moment it is made: a "never while
// held" property is checked on every event it received (Drain), not on a poll.
type KindWatch struct{ watches []watch.Interface }

// WatchKinds watches every object of the kinds in namespace ns; Stop ends the watches.
func WatchKinds(ctx context.Context, c client.WithWatch, ns string, gvks ...schema.GroupVersionKind) (*KindWatch, error) {
	w := &KindWatch{}
	for _, gvk := range gvks {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		wi, err := c.Watch(ctx, list, client.InNamespace(ns))
		if err != nil {
			w.Stop()
			return nil, fmt.Errorf("watching %s in %s: %w", gvk.Kind, ns, err)
		}
		w.watches = append(w.watches, wi)
	}
	return w, nil
}

// Drain returns, described, the events received so far that bad reports (and a closed watch:
// events may have been missed).
func (w *KindWatch) Drain(bad func(watch.Event, *unstructured.Unstructured) bool) []string {
	var out []string
	for _, wi := range w.watches {
		for done := false; !done; {
			select {
			case ev, ok := <-wi.ResultChan():
				if !ok {
					return append(out, "a watch closed")
				}
				if u, isU := ev.Object.(*unstructured.Unstructured); isU && bad(ev, u) {
					out = append(out, fmt.Sprintf("%s %s %s", ev.Type, u.GetKind(), u.GetName()))
				}
			default:
				done = true
			}
		}
	}
	return out
}

// Stop ends the watches.
func (w *KindWatch) Stop() {
	for _, wi := range w.watches {
		wi.Stop()
	}
}
