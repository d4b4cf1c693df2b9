package topology

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
)

// deleteRemovedMachineDeployments deletes the MachineDeployments (health check first, as
// upstream does) whose entries were removed from the topology.
func (r *Reconciler) deleteRemovedMachineDeployments(ctx context.Context, s *scope, state *desired.State) error {
	keep := map[string]bool{}
	for _, md := range state.MachineDeployments {
		keep[md.TopologyName] = true
	}
	for name, md := range s.current.MachineDeployments {
		if keep[name] {
			continue
		}
		if err := r.deleteOwned(ctx, s.cluster, &clusterv1.MachineHealthCheck{}, md.Name); err != nil {
			return err
		}
		if err := r.deleteOwned(ctx, s.cluster, &clusterv1.MachineDeployment{}, md.Name); err != nil {
			return err
		}
	}
	return nil
}

// deleteRemovedMachinePools deletes the MachinePools whose entries were removed from the
// topology; as upstream, only the pool: the MachinePool controller deletes its InfraMachinePool
// and BootstrapConfig (and the Cluster's owner reference collects them at the latest).
func (r *Reconciler) deleteRemovedMachinePools(ctx context.Context, s *scope, state *desired.State) error {
	keep := map[string]bool{}
	for _, mp := range state.MachinePools {
		keep[mp.TopologyName] = true
	}
	for name, mp := range s.current.MachinePools {
		if keep[name] {
			continue
		}
		if err := r.deleteOwned(ctx, s.cluster, &clusterv1.MachinePool{}, mp.Name); err != nil {
			return err
		}
	}
	return nil
}

// deleteOwned deletes the named object of obj's type if the topology generated it for c.
func (r *Reconciler) deleteOwned(ctx context.Context, c *clusterv1.Cluster, obj client.Object, name string) error {
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %T %s: %w", obj, name, err)
	}
	if !generatedFor(obj, c) || !obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	return r.delete(ctx, c, obj)
}

// delete deletes obj, which the topology generated for c and no longer needs, and records it on c.
func (r *Reconciler) delete(ctx context.Context, c *clusterv1.Cluster, obj client.Object) error {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	ctrl.LoggerFrom(ctx).Info("Deleting "+kind+" no longer in the topology", "name", obj.GetName())
	err := r.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())})
	if apierrors.IsNotFound(err) {
		return nil
	}
	r.recordDelete(c, obj, err)
	if err != nil {
		return fmt.Errorf("deleting %s %s: %w", kind, obj.GetName(), err)
	}
	return nil
}

// generatedFor reports whether obj carries the topology's labels for c.
func generatedFor(obj client.Object, c *clusterv1.Cluster) bool {
	l := obj.GetLabels()
	_, owned := l[clusterv1.ClusterTopologyOwnedLabel]
	return owned && l[clusterv1.ClusterNameLabel] == c.Name
}
