package machineset

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// machineToMachineSets maps a Machine to the MachineSet that controls it or, for an orphan, to
// every MachineSet of its Cluster whose selector matches it (one of them adopts it).
func (r *Reconciler) machineToMachineSets(ctx context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	if ref := metav1.GetControllerOf(m); ref != nil {
		if ref.Kind != "MachineSet" || !isClusterGroup(ref.APIVersion) {
			return nil
		}
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}}}
	}
	if !m.DeletionTimestamp.IsZero() {
		return nil
	}
	list := &clusterv1.MachineSetList{}
	if err := r.Client.List(ctx, list, client.InNamespace(m.Namespace), client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachineSets to find one that adopts a Machine", "Machine", client.ObjectKeyFromObject(m))
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		ms := &list.Items[i]
		if ms.Spec.ClusterName != m.Spec.ClusterName {
			continue
		}
		sel, err := selectorFor(ms)
		if err != nil || !sel.Matches(labels.Set(m.Labels)) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(ms)})
	}
	return out
}

// machineDeploymentToMachineSets maps a MachineDeployment to the MachineSets it controls: its
// revision decides which of them are up to date and may remediate.
func (r *Reconciler) machineDeploymentToMachineSets(ctx context.Context, o client.Object) []reconcile.Request {
	list := &clusterv1.MachineSetList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachineSets of a MachineDeployment", "MachineDeployment", client.ObjectKeyFromObject(o))
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == o.GetUID() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return out
}

// clusterToMachineSets maps a Cluster to the MachineSets that belong to it.
func (r *Reconciler) clusterToMachineSets(ctx context.Context, o client.Object) []reconcile.Request {
	list := &clusterv1.MachineSetList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachineSets of a Cluster", "Cluster", client.ObjectKeyFromObject(o))
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if list.Items[i].Spec.ClusterName == o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return out
}

// isClusterGroup reports whether apiVersion is in the cluster.x-k8s.io group, at any version.
func isClusterGroup(apiVersion string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return err == nil && gv.Group == clusterv1.GroupVersion.Group
}
