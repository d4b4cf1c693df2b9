package machinehealthcheck

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// machineToMachineHealthChecks maps a Machine to the MachineHealthChecks that select it.
func (r *Reconciler) machineToMachineHealthChecks(ctx context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	var out []reconcile.Request
	for _, mhc := range r.machineHealthChecksOf(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.ClusterName}) {
		sel, err := targetSelector(mhc)
		if err != nil || !sel.Matches(labels.Set(m.Labels)) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(mhc)})
	}
	return out
}

// clusterToMachineHealthChecks maps a Cluster to its MachineHealthChecks.
func (r *Reconciler) clusterToMachineHealthChecks(ctx context.Context, o client.Object) []reconcile.Request {
	return r.clusterKeyToMachineHealthChecks(ctx, client.ObjectKeyFromObject(o))
}

func (r *Reconciler) clusterKeyToMachineHealthChecks(ctx context.Context, cluster client.ObjectKey) []reconcile.Request {
	mhcs := r.machineHealthChecksOf(ctx, cluster)
	out := make([]reconcile.Request, 0, len(mhcs))
	for _, mhc := range mhcs {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(mhc)})
	}
	return out
}

// machineHealthChecksOf lists the MachineHealthChecks of a Cluster. It matches
// spec.clusterName rather than the cluster-name label, which a new MachineHealthCheck
// does not carry until its first reconcile.
func (r *Reconciler) machineHealthChecksOf(ctx context.Context, cluster client.ObjectKey) []*clusterv1.MachineHealthCheck {
	if cluster.Name == "" {
		return nil
	}
	list := &clusterv1.MachineHealthCheckList{}
	if err := r.Client.List(ctx, list, client.InNamespace(cluster.Namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachineHealthChecks", "Cluster", cluster)
		return nil
	}
	var out []*clusterv1.MachineHealthCheck
	for i := range list.Items {
		if list.Items[i].Spec.ClusterName == cluster.Name {
			out = append(out, &list.Items[i])
		}
	}
	return out
}

// targetSelector is spec.selector restricted to the MachineHealthCheck's Cluster. An
// empty spec.selector selects every Machine of the Cluster, as upstream does.
func targetSelector(mhc *clusterv1.MachineHealthCheck) (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(metav1.CloneSelectorAndAddLabel(
		&mhc.Spec.Selector, clusterv1.ClusterNameLabel, mhc.Spec.ClusterName))
}
