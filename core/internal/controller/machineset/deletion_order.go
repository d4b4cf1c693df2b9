package machineset

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// deletionTier ranks why a Machine should go first when scaling down; higher goes first.
type deletionTier int

const (
	// tierPolicy: a healthy Machine, ordered by spec.deletion.order alone.
	tierPolicy deletionTier = iota
	// tierUnhealthy: no Node yet, an unhealthy Node, a failed health check, or not Ready.
	tierUnhealthy
	// tierMarked: the cluster.x-k8s.io/delete-machine annotation asks for this Machine.
	tierMarked
	// tierDeleting: already being deleted; picking it costs nothing.
	tierDeleting
)

func (t deletionTier) String() string {
	switch t {
	case tierDeleting:
		return "Deleting"
	case tierMarked:
		return "MarkedForDeletion"
	case tierUnhealthy:
		return "Unhealthy"
	default:
		return "Policy"
	}
}

// machineDeletionTier places m in its tier: deleting > marked for deletion > unhealthy > policy.
func machineDeletionTier(m *clusterv1.Machine) deletionTier {
	switch {
	case deleting(m):
		return tierDeleting
	case hasAnnotation(m, clusterv1.DeleteMachineAnnotation):
		return tierMarked
	case isUnhealthy(m):
		return tierUnhealthy
	default:
		return tierPolicy
	}
}

// isUnhealthy reports whether m is worse to keep than a healthy Machine: it has no Node yet, its
// Node is unhealthy, a MachineHealthCheck failed it, or it is not Ready.
func isUnhealthy(m *clusterv1.Machine) bool {
	if !m.Status.NodeRef.IsDefined() {
		return true
	}
	if c := conditions.Get(m, clusterv1.MachineNodeHealthyCondition); c != nil && c.Status == metav1.ConditionFalse {
		return true
	}
	if c := conditions.Get(m, clusterv1.MachineHealthCheckSucceededCondition); c != nil && c.Status == metav1.ConditionFalse {
		return true
	}
	return !conditions.IsTrue(m, clusterv1.MachineReadyCondition)
}

func hasAnnotation(m *clusterv1.Machine, key string) bool {
	_, ok := m.Annotations[key]
	return ok
}

// SortForDeletion orders machines so that the first ones are the first to delete: by tier, then
// within a tier by order (Oldest: oldest first; Newest: newest first), then by name. The
// MachineDeployment controller uses it too, to know which Machines a scale down will take.
//
// Random, the default, orders a tier by name only. Machine names end in a random suffix, so this
// is a random choice that is also stable from one reconcile to the next: a scale down that is
// retried picks the same Machines instead of deleting more.
func SortForDeletion(machines []*clusterv1.Machine, order clusterv1.MachineSetDeletionOrder) error {
	var newerFirst, olderFirst bool
	switch order {
	case "", clusterv1.RandomMachineSetDeletionOrder:
	case clusterv1.OldestMachineSetDeletionOrder:
		olderFirst = true
	case clusterv1.NewestMachineSetDeletionOrder:
		newerFirst = true
	default:
		return fmt.Errorf("unsupported spec.deletion.order %q: must be one of 'Random', 'Newest', or 'Oldest'", order)
	}
	sort.SliceStable(machines, func(i, j int) bool {
		a, b := machines[i], machines[j]
		if ta, tb := machineDeletionTier(a), machineDeletionTier(b); ta != tb {
			return ta > tb
		}
		ca, cb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
		switch {
		case olderFirst && !ca.Equal(cb):
			return ca.Before(cb)
		case newerFirst && !ca.Equal(cb):
			return ca.After(cb)
		}
		return a.Name < b.Name
	})
	return nil
}
