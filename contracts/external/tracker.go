package external

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// Tracker adds a watch per GroupVersionKind on a controller, lazily: the core cannot know
// provider kinds at start-up, so it watches each kind the first time a reference
// to it is followed. A failed watch is forgotten so the next reconcile retries.
//
// Per version, not per kind: the cached client reads a provider object at the version its CRD's
// contract label names today, from that version's informer. When a provider upgrade moves the
// label (v1alpha1 → v1alpha1_v1alpha2), reads move to a new informer; events from the old
// version's informer alone could then wake a reconcile before the new informer holds the change,
// and the reconcile would see the object as it was and wait for an event that never comes.
type Tracker struct {
	Controller controller.Controller
	Cache      cache.Cache
	// Handler maps events of the watched objects to requests of this controller's
	// kind, e.g. handler.EnqueueRequestForOwner(scheme, mapper, &Machine{}).
	Handler    handler.EventHandler
	Predicates []predicate.Predicate

	watching sync.Map // schema.GroupVersionKind -> struct{}
	mu       sync.Mutex
}

// Watch makes sure obj's GroupVersionKind is watched. It is cheap after the first call.
func (t *Tracker) Watch(log logr.Logger, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	if _, ok := t.watching.Load(gvk); ok {
		return nil
	}
	t.mu.Lock() // one caller adds the watch; others wait and see it done
	defer t.mu.Unlock()
	if _, ok := t.watching.Load(gvk); ok {
		return nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	log.Info("Adding watch on external object", "groupKind", gvk.GroupKind().String(), "version", gvk.Version)
	if err := t.Controller.Watch(source.Kind[client.Object](t.Cache, u, t.Handler, t.Predicates...)); err != nil {
		return fmt.Errorf("watching %s: %w", gvk.GroupKind(), err)
	}
	t.watching.Store(gvk, struct{}{})
	return nil
}

// Watching reports whether gk is watched at some version (for tests).
func (t *Tracker) Watching(gk schema.GroupKind) bool {
	found := false
	t.watching.Range(func(key, _ any) bool {
		found = key.(schema.GroupVersionKind).GroupKind() == gk
		return !found
	})
	return found
}

// WatchingVersion reports whether gvk is watched (for tests).
func (t *Tracker) WatchingVersion(gvk schema.GroupVersionKind) bool {
	_, ok := t.watching.Load(gvk)
	return ok
}

// GetAndWatch reads the referenced object like Get and makes sure its kind is
// watched, even when the object does not exist yet. notFound reports a missing
// object; a kind without an installed CRD is an error wrapping
// contract.ErrCRDNotFound. A nil Tracker only reads.
func (t *Tracker) GetAndWatch(ctx context.Context, c client.Reader, ref clusterv1.ContractVersionedObjectReference, namespace string) (obj *unstructured.Unstructured, v contract.Version, notFound bool, err error) {
	obj, v, err = Get(ctx, c, ref, namespace)
	if v.APIVersion != "" && t != nil {
		probe := &unstructured.Unstructured{}
		probe.SetGroupVersionKind(v.GroupVersionKind(ref.GroupKind()))
		if werr := t.Watch(ctrl.LoggerFrom(ctx), probe); werr != nil {
			return nil, v, false, werr
		}
	}
	switch {
	case err == nil:
		return obj, v, false, nil
	case apierrors.IsNotFound(err):
		return nil, v, true, nil
	default:
		return nil, v, false, err
	}
}

// Delete deletes the referenced object, once, and reports whether it is gone. An
// undefined reference, a missing object and a kind without an installed CRD are
// all gone. The kind is watched (as GetAndWatch does), so its disappearance
// triggers the caller again instead of a polling requeue.
func (t *Tracker) Delete(ctx context.Context, c client.Client, ref clusterv1.ContractVersionedObjectReference, namespace string) (gone bool, err error) {
	if !ref.IsDefined() {
		return true, nil
	}
	obj, _, notFound, err := t.GetAndWatch(ctx, c, ref, namespace)
	if errors.Is(err, contract.ErrCRDNotFound) || notFound {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if obj.GetDeletionTimestamp().IsZero() {
		ctrl.LoggerFrom(ctx).Info("Deleting "+ref.Kind, ref.Kind, ref.Name)
		if err := c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("deleting %s %s: %w", ref.Kind, ref.Name, err)
		}
	}
	return false, nil
}
