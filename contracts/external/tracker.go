package external

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Tracker adds a watch per GroupKind on a controller, lazily: the core cannot know
// provider kinds at start-up, so it watches each kind the first time a reference
// to it is followed. A failed watch is forgotten so the next reconcile retries.
type Tracker struct {
	Controller controller.Controller
	Cache      cache.Cache
	// Handler maps events of the watched objects to requests of this controller's
	// kind, e.g. handler.EnqueueRequestForOwner(scheme, mapper, &Machine{}).
	Handler    handler.EventHandler
	Predicates []predicate.Predicate

	watching sync.Map // schema.GroupKind -> struct{}
	mu       sync.Mutex
}

// Watch makes sure obj's GroupKind is watched. It is cheap after the first call.
func (t *Tracker) Watch(log logr.Logger, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	gk := gvk.GroupKind()
	if _, ok := t.watching.Load(gk); ok {
		return nil
	}
	t.mu.Lock() // one caller adds the watch; others wait and see it done
	defer t.mu.Unlock()
	if _, ok := t.watching.Load(gk); ok {
		return nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	log.Info("Adding watch on external object", "groupKind", gk.String())
	if err := t.Controller.Watch(source.Kind[client.Object](t.Cache, u, t.Handler, t.Predicates...)); err != nil {
		return fmt.Errorf("watching %s: %w", gk, err)
	}
	t.watching.Store(gk, struct{}{})
	return nil
}

// Watching reports whether gk is watched (for tests).
func (t *Tracker) Watching(gk schema.GroupKind) bool {
	_, ok := t.watching.Load(gk)
	return ok
}
