// Package predicates filters the events a Capstan controller reacts to: paused
// objects, objects outside this instance's --watch-filter, and Cluster transitions
// that matter to a child (unpaused, infrastructure provisioned, control plane
// initialized), and a controller's own status writes coming back as update events.
// Predicates never read the API; they judge the event's objects only.
package predicates

import (
	"maps"
	"reflect"
	"slices"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// HasPausedAnnotation reports whether obj carries cluster.x-k8s.io/paused.
func HasPausedAnnotation(obj client.Object) bool {
	_, ok := obj.GetAnnotations()[clusterv1.PausedAnnotation]
	return ok
}

// ResourceNotPaused drops events for objects annotated as paused.
func ResourceNotPaused(log logr.Logger) predicate.Funcs {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		if HasPausedAnnotation(obj) {
			log.V(6).Info("Ignoring paused object", "object", client.ObjectKeyFromObject(obj))
			return false
		}
		return true
	})
}

// ResourceHasFilterLabel keeps only objects labelled cluster.x-k8s.io/watch-filter
// with the given value; an empty value keeps everything.
func ResourceHasFilterLabel(watchFilterValue string) predicate.Funcs {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return watchFilterValue == "" || obj.GetLabels()[clusterv1.WatchLabel] == watchFilterValue
	})
}

// ResourceNotPausedAndHasFilterLabel combines the two.
func ResourceNotPausedAndHasFilterLabel(log logr.Logger, watchFilterValue string) predicate.Predicate {
	return predicate.And(ResourceNotPaused(log), ResourceHasFilterLabel(watchFilterValue))
}

// ClusterUpdateTriggersChildren passes Cluster update events that children wait
// for: spec.paused (or the paused annotation) turned on or off — children report
// the pause in their Paused condition at once, as upstream's
// ClusterPausedTransitions does — infrastructure became provisioned, the control
// plane became initialized, the control plane endpoint was set. Creates pass too.
func ClusterUpdateTriggersChildren() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return true },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldC, ok1 := e.ObjectOld.(*clusterv1.Cluster)
			newC, ok2 := e.ObjectNew.(*clusterv1.Cluster)
			if !ok1 || !ok2 {
				return false
			}
			pauseChanged := isPaused(oldC) != isPaused(newC)
			infra := !ptrTrue(oldC.Status.Initialization.InfrastructureProvisioned) &&
				ptrTrue(newC.Status.Initialization.InfrastructureProvisioned)
			cp := !ptrTrue(oldC.Status.Initialization.ControlPlaneInitialized) &&
				ptrTrue(newC.Status.Initialization.ControlPlaneInitialized)
			endpoint := !oldC.Spec.ControlPlaneEndpoint.IsValid() && newC.Spec.ControlPlaneEndpoint.IsValid()
			deleting := oldC.DeletionTimestamp.IsZero() && !newC.DeletionTimestamp.IsZero()
			return pauseChanged || infra || cp || endpoint || deleting
		},
	}
}

func isPaused(c *clusterv1.Cluster) bool {
	return ptrTrue(c.Spec.Paused) || HasPausedAnnotation(c)
}

func ptrTrue(b *bool) bool { return b != nil && *b }

// IgnoreOwnStatusWrites drops update events that change nothing but status: for a
// controller's own kind, whose status only that controller writes, such an event is the
// echo of its last status patch and says nothing it did not know. Letting it through
// made every status write trigger an immediate reconcile, defeating the batching of the
// events it summarises (mapping.EnqueueRequestsFromMapFuncBatched): a MachineDeployment
// of ten Machines wrote its status over 30 times in make bench. Resyncs (same
// resourceVersion) and every change of spec (generation), labels, annotations,
// finalizers, owner references or deletion pass.
func IgnoreOwnStatusWrites() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		if o == nil || n == nil || o.GetResourceVersion() == n.GetResourceVersion() {
			return true
		}
		return o.GetGeneration() != n.GetGeneration() ||
			!maps.Equal(o.GetLabels(), n.GetLabels()) ||
			!maps.Equal(o.GetAnnotations(), n.GetAnnotations()) ||
			!slices.Equal(o.GetFinalizers(), n.GetFinalizers()) ||
			!reflect.DeepEqual(o.GetOwnerReferences(), n.GetOwnerReferences()) ||
			!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp())
	}}
}
