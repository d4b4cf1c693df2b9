package clusterresourceset

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
)

var configMapsResource = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// namedConfigMapWatches is the controller's source of ConfigMap events: one metadata watch per
// ConfigMap that a ClusterResourceSet names, narrowed on the server to that name (field selector
// metadata.name), so the manager neither receives nor keeps any other ConfigMap. ConfigMaps have
// no type to select on, as Secrets have, and a management cluster holds many of them: one
// informer over all of them cost the core about 10 % more memory with 10,000 foreign ConfigMaps
// (`make bench`, scenario 6). The price is one watch per named ConfigMap on the API server,
// which is what a ClusterResourceSet needs to re-apply a changed resource at once.
//
// The watched set follows the ClusterResourceSets: every reconcile calls sync with the names
// all of them reference, which starts the missing watches and stops the ones nobody names any
// more. A watch's first list reports an existing ConfigMap, so one created between a
// reconcile's live read and the start of its watch is not missed.
type namedConfigMapWatches struct {
	client     metadata.Interface
	toRequests func(context.Context, addonsv1.ClusterResourceSetResourceKind, client.ObjectKey) []reconcile.Request

	mu sync.Mutex
	// ctx and queue are the controller's, from Start; nil before.
	ctx     context.Context
	queue   workqueue.TypedRateLimitingInterface[reconcile.Request]
	watches map[client.ObjectKey]namedWatch
}

type namedWatch struct {
	informer toolscache.SharedIndexInformer
	stop     context.CancelFunc
}

// Start is called by the controller when it starts; the watches live as long as ctx.
func (w *namedConfigMapWatches) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx, w.queue = ctx, queue
	w.watches = map[client.ObjectKey]namedWatch{}
	return nil
}

// sync makes the watched ConfigMaps exactly keys.
func (w *namedConfigMapWatches) sync(keys sets.Set[client.ObjectKey]) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx == nil {
		return errors.New("the ConfigMap watches have not been started")
	}
	for key, watch := range w.watches {
		if !keys.Has(key) {
			watch.stop()
			delete(w.watches, key)
		}
	}
	for key := range keys {
		if _, ok := w.watches[key]; !ok {
			w.watches[key] = w.start(key)
		}
	}
	return nil
}

// start runs an informer over the one ConfigMap key names; its events enqueue the
// ClusterResourceSets that name it.
func (w *namedConfigMapWatches) start(key client.ObjectKey) namedWatch {
	ctx, cancel := context.WithCancel(w.ctx)
	byName := func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", key.Name).String()
	}
	inf := metadatainformer.NewFilteredMetadataInformer(w.client, configMapsResource, key.Namespace, 0, toolscache.Indexers{}, byName).Informer()
	_ = inf.SetTransform(keepIdentity) // fails only once the informer runs
	queue := w.queue
	enqueue := func(any) {
		for _, req := range w.toRequests(ctx, addonsv1.ConfigMapClusterResourceSetResourceKind, key) {
			queue.Add(req)
		}
	}
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	})
	go inf.RunWithContext(ctx)
	return namedWatch{informer: inf, stop: cancel}
}

// cached lists the ConfigMaps the watches hold, as namespace/name, sorted (for tests: nothing
// else may be in there).
func (w *namedConfigMapWatches) cached() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, watch := range w.watches {
		out = append(out, watch.informer.GetStore().ListKeys()...)
	}
	slices.SortFunc(out, strings.Compare)
	return out
}

// watched lists the keys the watches are for, as namespace/name, sorted (for tests).
func (w *namedConfigMapWatches) watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.watches))
	for key := range w.watches {
		out = append(out, key.String())
	}
	slices.SortFunc(out, strings.Compare)
	return out
}

// namedConfigMaps are the ConfigMaps the ClusterResourceSets that are not being deleted name.
func namedConfigMaps(list *addonsv1.ClusterResourceSetList) sets.Set[client.ObjectKey] {
	keys := sets.New[client.ObjectKey]()
	for i := range list.Items {
		crs := &list.Items[i]
		if !crs.DeletionTimestamp.IsZero() {
			continue
		}
		for _, ref := range crs.Spec.Resources {
			if ref.Kind == string(addonsv1.ConfigMapClusterResourceSetResourceKind) {
				keys.Insert(client.ObjectKey{Namespace: crs.Namespace, Name: ref.Name})
			}
		}
	}
	return keys
}
