package envtest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// CallCounter counts the writes a reconciler makes through its client, and its
// reads of one object (each reconcile of that object starts with one), so a test
// can tell "reconciled again and wrote nothing" from "not reconciled yet". Writes
// to namespaced objects outside Key's namespace are not counted: tests share one
// API server, whose namespaces never finish deleting without a controller manager,
// so a manager under test may still be reconciling another test's leftovers.
type CallCounter struct {
	// Key and Type name the object whose reads are counted; Type is an empty
	// object of its Go type, such as &clusterv1.MachinePool{}.
	Key  client.ObjectKey
	Type client.Object

	mu     sync.Mutex
	gets   int
	writes []string
}

// Snapshot returns the reads of the object and every write so far.
func (c *CallCounter) Snapshot() (gets int, writes []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gets, append([]string(nil), c.writes...)
}

// PokeAnnotation is the annotation Poke sets.
const PokeAnnotation = "test.capstan.dev/poke"

// Poke sets obj's PokeAnnotation to value through cl and waits until the controller counted
// through c has read the object again: a reconcile started after the change. value must differ
// from the last one, or nothing changes.
func (c *CallCounter) Poke(t TB, cl client.Client, obj client.Object, value string) {
	t.Helper()
	gets, _ := c.Snapshot()
	Update(t, cl, obj, func() {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[PokeAnnotation] = value
		obj.SetAnnotations(a)
	})
	WaitFor(t, 30*time.Second, "another reconcile of "+client.ObjectKeyFromObject(obj).String(), func() (bool, error) {
		now, _ := c.Snapshot()
		return now > gets, nil
	})
}

func (c *CallCounter) write(verb string, obj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := fmt.Sprintf("%T", obj)
	if o, ok := obj.(client.Object); ok {
		if ns := o.GetNamespace(); ns != "" && c.Key.Namespace != "" && ns != c.Key.Namespace {
			return
		}
		name = fmt.Sprintf("%T %s", o, o.GetName())
	}
	c.writes = append(c.writes, verb+" "+name)
}

// Wrap returns inner counting through c.
func (c *CallCounter) Wrap(inner client.Client) client.Client {
	return Intercept(inner, interceptor.Funcs{
		Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if key == c.Key && reflect.TypeOf(obj) == reflect.TypeOf(c.Type) {
				c.mu.Lock()
				c.gets++
				c.mu.Unlock()
			}
			return cl.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			c.write("create", obj)
			return cl.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			c.write("update", obj)
			return cl.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			c.write("patch", obj)
			return cl.Patch(ctx, obj, p, opts...)
		},
		Apply: func(ctx context.Context, cl client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			c.write("apply", obj)
			return cl.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			c.write("delete", obj)
			return cl.Delete(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			c.write(sub+" update", obj)
			return cl.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			c.write(sub+" patch", obj)
			return cl.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
		SubResourceApply: func(ctx context.Context, cl client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			c.write(sub+" apply", obj)
			return cl.SubResource(sub).Apply(ctx, obj, opts...)
		},
	})
}

// WrapRecorder returns inner counting through c: an Event is a write to the API server (the
// recorder writes it through its own client, which Wrap does not see), so a steady state
// records none. Counted as "event <Reason> <Go type> <name>".
func (c *CallCounter) WrapRecorder(inner events.EventRecorder) events.EventRecorder {
	return countingRecorder{c: c, inner: inner}
}

// EventsRecorded counts the Events with reason recorded so far on the object named name (in
// Key's namespace), however the recorder aggregated them.
func (c *CallCounter) EventsRecorded(reason, name string) int {
	_, writes := c.Snapshot()
	n := 0
	for _, w := range writes {
		if strings.HasPrefix(w, "event "+reason+" ") && strings.HasSuffix(w, " "+name) {
			n++
		}
	}
	return n
}

type countingRecorder struct {
	c     *CallCounter
	inner events.EventRecorder
}

func (r countingRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.c.write("event "+reason, regarding)
	r.inner.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// Intercept wraps a manager's client (which cannot watch, so interceptor.NewClient
// does not take it as it is) with funcs, for a test that fails or counts a
// reconciler's calls.
func Intercept(inner client.Client, funcs interceptor.Funcs) client.Client {
	return interceptor.NewClient(withoutWatch{inner}, funcs)
}

// withoutWatch lets the interceptor wrap a manager's client, which cannot watch.
type withoutWatch struct{ client.Client }

func (withoutWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, fmt.Errorf("watch is not supported through a manager's client")
}
