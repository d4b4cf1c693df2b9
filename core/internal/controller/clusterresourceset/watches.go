package clusterresourceset

import (
	"context"
	"fmt"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/predicates"
)

// newSecretMetadataCache builds the informer cache over the metadata of Secrets of the
// resource-set type (addons.cluster.x-k8s.io/resource-set, the only Secrets a
// ClusterResourceSet applies), which tells the controller a named Secret appeared, changed or
// went away. It is narrowed on the server by that type: a management cluster holds many other
// Secrets, and informing on all of them cost the core memory for each (`make bench`, scenario
// 6). A named Secret of another type is still read, live, by every reconcile, which reports
// it; re-created with the right type, it is seen. Objects are stripped to their identity
// before they are stored, so the cache holds no data, labels or annotations of any Secret. It
// joins the manager's cache group, which syncs before controllers start.
func newSecretMetadataCache(mgr ctrl.Manager) (cache.Cache, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient:                  mgr.GetHTTPClient(),
		Scheme:                      mgr.GetScheme(),
		Mapper:                      mgr.GetRESTMapper(),
		DefaultFieldSelector:        fields.OneTermEqualSelector("type", string(addonsv1.ClusterResourceSetSecretType)),
		DefaultTransform:            keepIdentity,
		ReaderFailOnMissingInformer: true,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the Secret metadata informer: %w", err)
	}
	if err := mgr.Add(managedCache{c}); err != nil {
		return nil, fmt.Errorf("adding the Secret metadata informer to the manager: %w", err)
	}
	return c, nil
}

// keepIdentity strips an object's metadata to name, namespace, UID and resource version.
func keepIdentity(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.ObjectMeta = metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}
	}
	return obj, nil
}

// managedCache puts a cache into the manager's cache group.
type managedCache struct{ cache.Cache }

func (m managedCache) GetCache() cache.Cache { return m.Cache }

// secretSource watches the metadata of resource-set Secrets and maps each event to the
// ClusterResourceSets naming it.
func secretSource(c cache.Cache, toRequests func(context.Context, addonsv1.ClusterResourceSetResourceKind, client.ObjectKey) []reconcile.Request) source.Source {
	kind := addonsv1.SecretClusterResourceSetResourceKind
	obj := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: string(kind)}}
	return source.Kind(c, obj, handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, o *metav1.PartialObjectMetadata) []reconcile.Request {
		return toRequests(ctx, kind, client.ObjectKeyFromObject(o))
	}))
}

// resourceToClusterResourceSets requests the ClusterResourceSets of the namespace that name the
// resource in spec.resources.
func (r *Reconciler) resourceToClusterResourceSets(ctx context.Context, kind addonsv1.ClusterResourceSetResourceKind, key client.ObjectKey) []reconcile.Request {
	return r.clusterResourceSets(ctx, key.Namespace, func(crs *addonsv1.ClusterResourceSet) bool {
		for _, ref := range crs.Spec.Resources {
			if ref.Kind == string(kind) && ref.Name == key.Name {
				return true
			}
		}
		return false
	})
}

// clusterToClusterResourceSets requests the ClusterResourceSets whose selector matches the Cluster.
func (r *Reconciler) clusterToClusterResourceSets(ctx context.Context, o client.Object) []reconcile.Request {
	set := labels.Set(o.GetLabels())
	return r.clusterResourceSets(ctx, o.GetNamespace(), func(crs *addonsv1.ClusterResourceSet) bool {
		selector, err := metav1.LabelSelectorAsSelector(crs.Spec.ClusterSelector.ToMetav1())
		return err == nil && !selector.Empty() && selector.Matches(set)
	})
}

// clusterKeyToClusterResourceSets is clusterToClusterResourceSets for a workload connection event.
func (r *Reconciler) clusterKeyToClusterResourceSets(ctx context.Context, key client.ObjectKey) []reconcile.Request {
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, key, cluster); err != nil {
		return nil
	}
	return r.clusterToClusterResourceSets(ctx, cluster)
}

// clusterResourceSets requests the ClusterResourceSets of namespace that match. A failed list
// requests nothing: the periodic resync catches up.
func (r *Reconciler) clusterResourceSets(ctx context.Context, namespace string, match func(*addonsv1.ClusterResourceSet) bool) []reconcile.Request {
	list := &addonsv1.ClusterResourceSetList{}
	if err := r.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if match(&list.Items[i]) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return out
}

// bindingToClusterResourceSets requests the ClusterResourceSets recorded in a binding, so a
// deleted binding is written again (and ApplyOnce resources applied again, as nothing records
// them any more).
func bindingToClusterResourceSets(_ context.Context, o client.Object) []reconcile.Request {
	b, ok := o.(*addonsv1.ClusterResourceSetBinding)
	if !ok {
		return nil
	}
	out := make([]reconcile.Request, 0, len(b.Spec.Bindings))
	for _, e := range b.Spec.Bindings {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: b.Namespace, Name: e.ClusterResourceSetName}})
	}
	return out
}

// onlyDeletes passes delete events only.
func onlyDeletes() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// clusterChanges passes the Cluster events that change what a ClusterResourceSet does: a new
// Cluster, changed labels (the selector may match now), and the transitions children wait for
// (pause, control plane initialized). Status-only updates are dropped: they are frequent and
// change nothing here.
func clusterChanges() predicate.Funcs {
	children := predicates.ClusterUpdateTriggersChildren()
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return true },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) || children.Update(e)
		},
	}
}
