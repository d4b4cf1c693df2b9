package machinedeployment

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

// machineSetToMachineDeployments maps a MachineSet to the MachineDeployment that controls it or,
// for an orphan, to every MachineDeployment of its Cluster whose selector matches it.
func (r *Reconciler) machineSetToMachineDeployments(ctx context.Context, o client.Object) []reconcile.Request {
	ms, ok := o.(*clusterv1.MachineSet)
	if !ok {
		return nil
	}
	if ref := metav1.GetControllerOf(ms); ref != nil {
		if !isMachineDeploymentRef(ref) {
			return nil
		}
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ms.Namespace, Name: ref.Name}}}
	}
	if !ms.DeletionTimestamp.IsZero() {
		return nil
	}
	list := &clusterv1.MachineDeploymentList{}
	if err := r.Client.List(ctx, list, client.InNamespace(ms.Namespace), client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachineDeployments to find one that adopts a MachineSet", "MachineSet", client.ObjectKeyFromObject(ms))
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		md := &list.Items[i]
		if md.Spec.ClusterName != ms.Spec.ClusterName {
			continue
		}
		sel, err := selectorFor(md)
		if err != nil || !sel.Matches(labels.Set(ms.Labels)) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(md)})
	}
	return out
}

// machineToMachineDeployment maps a Machine to the MachineDeployment controlling its MachineSet:
// Machines becoming available or going away pace a rolling update.
func (r *Reconciler) machineToMachineDeployment(ctx context.Context, o client.Object) []reconcile.Request {
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != "MachineSet" || !isClusterGroup(ref.APIVersion) {
		return nil
	}
	ms := &clusterv1.MachineSet{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}, ms); err != nil {
		return nil // a MachineSet that is gone has no MachineDeployment to wake
	}
	mdRef := metav1.GetControllerOf(ms)
	if mdRef == nil || !isMachineDeploymentRef(mdRef) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ms.Namespace, Name: mdRef.Name}}}
}

// clusterToMachineDeployments maps a Cluster to the MachineDeployments that belong to it.
func (r *Reconciler) clusterToMachineDeployments(ctx context.Context, o client.Object) []reconcile.Request {
	list := &clusterv1.MachineDeploymentList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing MachineDeployments of a Cluster", "Cluster", client.ObjectKeyFromObject(o))
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

func isMachineDeploymentRef(ref *metav1.OwnerReference) bool {
	return ref.Kind == "MachineDeployment" && isClusterGroup(ref.APIVersion)
}

// isClusterGroup reports whether apiVersion is in the cluster.x-k8s.io group, at any version.
func isClusterGroup(apiVersion string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return err == nil && gv.Group == clusterv1.GroupVersion.Group
}
