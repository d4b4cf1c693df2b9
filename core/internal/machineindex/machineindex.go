package machineindex

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ByController indexes Machines by the UID of their controller (the owner reference with
// controller: true); Machines without a controller are indexed under NoController.
const ByController = "metadata.ownerReferences.controller.uid"

// NoController is the ByController value of a Machine without a controller (an orphan a
// MachineSet may adopt). No UID is this string.
const NoController = "<none>"

// ControllerKey is the ByController value of obj, as the cache's index function.
func ControllerKey(obj client.Object) []string { return []string{controllerKey(obj)} }

// controllerKey is the UID of obj's controller, or NoController.
func controllerKey(obj client.Object) string {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return string(ref.UID)
	}
	return NoController
}

// registered remembers the managers ByController was added to: the MachineSet and the
// MachineDeployment controllers both need it, and a cache refuses the same index twice.
var (
	registeredMu sync.Mutex
	registered   = map[ctrl.Manager]bool{}
)

// Add registers ByController on mgr's cache, once per manager; later calls do nothing.
func Add(ctx context.Context, mgr ctrl.Manager) error {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	if registered[mgr] {
		return nil
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &clusterv1.Machine{}, ByController, ControllerKey); err != nil {
		return fmt.Errorf("indexing Machines by their controller: %w", err)
	}
	registered[mgr] = true
	return nil
}

// OwnedBy lists, through c (the manager's cache), the Machines of namespace whose controller
// has uid, without the cache's deep copy: the caller must copy what it keeps or changes. Only
// Machines whose controller reference really carries uid are returned, so a reader that cannot
// use the index (and returns more) gives the same answer.
func OwnedBy(ctx context.Context, c client.Reader, namespace, uid string, opts ...client.ListOption) ([]clusterv1.Machine, error) {
	list := &clusterv1.MachineList{}
	opts = append([]client.ListOption{client.InNamespace(namespace), client.UnsafeDisableDeepCopy,
		client.MatchingFields{ByController: uid}}, opts...)
	if err := c.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	out := list.Items[:0:0]
	for i := range list.Items {
		if controllerKey(&list.Items[i]) == uid {
			out = append(out, list.Items[i])
		}
	}
	return out, nil
}
