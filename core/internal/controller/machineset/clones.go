package machineset

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/external"
)

// newClones builds (without creating them) the BootstrapConfig, when the template has one, and
// the InfraMachine of a new Machine from the MachineSet's templates, and points the Machine's
// references at them.
func (r *Reconciler) newClones(ctx context.Context, ms *clusterv1.MachineSet, m *clusterv1.Machine) ([]*unstructured.Unstructured, error) {
	tmpl := &ms.Spec.Template
	build := func(what string, ref clusterv1.ContractVersionedObjectReference) (*unstructured.Unstructured, error) {
		obj, err := external.NewFromTemplate(ctx, r.Client, external.CloneInput{
			Template:    ref,
			Namespace:   ms.Namespace,
			Name:        m.Name,
			ClusterName: ms.Spec.ClusterName,
			Labels:      m.Labels,
			Annotations: tmpl.Annotations,
		})
		if err != nil {
			return nil, fmt.Errorf("building the %s for Machine %s from %s %s: %w", what, m.Name, ref.Kind, ref.Name, err)
		}
		return obj, nil
	}
	var clones []*unstructured.Unstructured
	if tmpl.Spec.Bootstrap.ConfigRef.IsDefined() {
		obj, err := build("BootstrapConfig", tmpl.Spec.Bootstrap.ConfigRef)
		if err != nil {
			return nil, err
		}
		m.Spec.Bootstrap.ConfigRef = external.RefTo(obj)
		clones = append(clones, obj)
	}
	obj, err := build("InfraMachine", tmpl.Spec.InfrastructureRef)
	if err != nil {
		return nil, err
	}
	m.Spec.InfrastructureRef = external.RefTo(obj)
	return append(clones, obj), nil
}

// machineControllerRef is the ownerReference that makes m the controller of a clone made for it.
func machineControllerRef(m *clusterv1.Machine) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         clusterv1.GroupVersion.String(),
		Kind:               "Machine",
		Name:               m.Name,
		UID:                m.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// repairMissingClones creates the bootstrap config or infrastructure machine of a Machine that
// reports it does not exist (after machine.CloneGracePeriod): a MachineSet killed between
// creating a Machine and its clones leaves such a Machine, and nothing else would ever create
// them. The clone is built from the MachineSet's template, with the name the Machine refers
// to; one that exists after all (a cache that lags) is left as it is.
func (r *Reconciler) repairMissingClones(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, m := range s.machines {
		if deleting(m) || !reportsMissingClone(m) {
			continue
		}
		clones, err := r.newClones(ctx, s.ms, m.DeepCopy())
		if err != nil {
			return ctrl.Result{}, err
		}
		for _, c := range clones {
			if !refersTo(m, c) {
				continue
			}
			c.SetOwnerReferences([]metav1.OwnerReference{machineControllerRef(m)})
			ctrl.LoggerFrom(ctx).Info("Creating the missing "+c.GetKind()+" of Machine", "Machine", klog.KObj(m), c.GetKind(), klog.KObj(c))
			if err := r.Client.Create(ctx, c); err != nil && !apierrors.IsAlreadyExists(err) {
				return ctrl.Result{}, fmt.Errorf("creating the missing %s %s of Machine %s: %w", c.GetKind(), c.GetName(), m.Name, err)
			}
		}
	}
	return ctrl.Result{}, nil
}

// reportsMissingClone says whether the Machine controller reports the Machine's bootstrap
// config or infrastructure machine as never having existed.
func reportsMissingClone(m *clusterv1.Machine) bool {
	b := conditions.Get(m, clusterv1.MachineBootstrapConfigReadyCondition)
	i := conditions.Get(m, clusterv1.MachineInfrastructureReadyCondition)
	return (b != nil && b.Reason == clusterv1.MachineBootstrapConfigDoesNotExistReason) ||
		(i != nil && i.Reason == clusterv1.MachineInfrastructureDoesNotExistReason)
}

// refersTo says whether obj is the bootstrap config or infrastructure machine m references.
func refersTo(m *clusterv1.Machine, obj *unstructured.Unstructured) bool {
	for _, ref := range []clusterv1.ContractVersionedObjectReference{m.Spec.Bootstrap.ConfigRef, m.Spec.InfrastructureRef} {
		if ref.Name == obj.GetName() && ref.Kind == obj.GetKind() && ref.APIGroup == obj.GroupVersionKind().Group {
			return true
		}
	}
	return false
}
