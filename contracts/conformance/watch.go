package conformance

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// version is one observed state of the object under test.
type version struct {
	obj     *unstructured.Unstructured // the object; on deletion its last known state
	deleted bool
}

// rewatchDelay is how long the stream waits before re-establishing a watch that
// failed to start (the API server restarting, a transient error).
const rewatchDelay = 200 * time.Millisecond

// stream delivers every version of the object from after resourceVersion from
// onwards, in order, until the object is deleted or ctx ends; then the channel
// closes. A watch the API server ends is resumed from the last version seen, and
// one whose start is too old (410 Gone) is resumed from a fresh read, so no change
// that lasts is missed. Intermediate versions may be coalesced by the API server
// only in the 410 case.
func (k *kit) stream(ctx context.Context, from *unstructured.Unstructured) <-chan version {
	out := make(chan version)
	key := client.ObjectKeyFromObject(from)
	go func() {
		defer close(out)
		last := from
		send := func(v version) bool {
			select {
			case out <- v:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for ctx.Err() == nil {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(k.in.GVK.GroupVersion().WithKind(k.in.GVK.Kind + "List"))
			w, err := k.in.Client.Watch(ctx, list, &client.ListOptions{Namespace: key.Namespace, Raw: &metav1.ListOptions{
				FieldSelector: "metadata.name=" + key.Name, ResourceVersion: last.GetResourceVersion(),
			}})
			if err != nil {
				select {
				case <-time.After(rewatchDelay):
				case <-ctx.Done():
				}
				continue
			}
			resume, ok := k.drain(ctx, w, &last, send)
			w.Stop()
			if !ok {
				return
			}
			if resume {
				continue
			}
			// The watch was too old: read the object and go on from there.
			fresh := last.DeepCopy()
			if err := k.in.Client.Get(ctx, key, fresh); err != nil {
				if apierrors.IsNotFound(err) {
					send(version{obj: last, deleted: true})
					return
				}
				continue
			}
			if fresh.GetResourceVersion() != last.GetResourceVersion() {
				last = fresh
				if !send(version{obj: fresh}) {
					return
				}
			}
		}
	}()
	return out
}

// drain forwards the events of one watch. It returns resume=true when the watch
// simply ended (resume from *last), resume=false after an error event (re-read
// first), and ok=false when the stream is over (deleted, or ctx ended).
func (k *kit) drain(ctx context.Context, w watch.Interface, last **unstructured.Unstructured, send func(version) bool) (resume, ok bool) {
	for {
		select {
		case <-ctx.Done():
			return false, false
		case ev, open := <-w.ResultChan():
			if !open {
				return true, true
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				u, isU := ev.Object.(*unstructured.Unstructured)
				if !isU {
					continue
				}
				*last = u
				if !send(version{obj: u}) {
					return false, false
				}
			case watch.Deleted:
				if u, isU := ev.Object.(*unstructured.Unstructured); isU {
					*last = u
				}
				send(version{obj: *last, deleted: true})
				return false, false
			case watch.Error:
				return false, true
			}
		}
	}
}

// await feeds the versions after from to done until it returns true, the object
// is deleted, or timeout passes. It returns the last version seen (from when there
// was none), whether done returned true, and whether the object was deleted.
func (k *kit) await(from *unstructured.Unstructured, timeout time.Duration, done func(*unstructured.Unstructured) bool) (last *unstructured.Unstructured, ok, deleted bool) {
	if done(from) {
		return from, true, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	last = from
	for v := range k.stream(ctx, from) {
		last = v.obj
		if v.deleted {
			return last, false, true
		}
		if done(v.obj) {
			return last, true, false
		}
	}
	return last, false, false
}
