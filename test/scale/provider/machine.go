package provider

import (
	"context"
	"fmt"
	"hash/fnv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// reconcileBootstrapConfig reports the data of a GenericBootstrapConfig owned by a
// Machine as created, named after the config.
func (p *scaleProvider) reconcileBootstrapConfig(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj, _, res, err := p.dueObject(ctx, bootstrapConfigGVK, req, "Machine")
	if obj == nil {
		return res, err
	}
	return ctrl.Result{}, p.patchGeneric(ctx, obj, func(o *unstructured.Unstructured) error {
		b := contract.Bootstrap()
		if err := b.DataSecretName().Set(o, o.GetName()); err != nil {
			return err
		}
		return b.DataSecretCreated(contract.V1Beta2).Set(o, true)
	})
}

// reconcileInfraMachine provisions a GenericInfrastructureMachine once its Machine
// has bootstrap data (as the contract asks), then registers its Node. The Node is
// ensured on every pass, so a provider killed between the two writes finishes the
// job when it comes back.
func (p *scaleProvider) reconcileInfraMachine(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj, owner, res, err := p.dueObject(ctx, infraMachineGVK, req, "Machine")
	if obj == nil {
		return res, err
	}
	m := &clusterv1.Machine{}
	if err := p.client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: owner.Name}, m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if m.Spec.Bootstrap.DataSecretName == nil {
		return ctrl.Result{}, nil // the Machine watch brings us back
	}
	providerID := ProviderIDPrefix + obj.GetNamespace() + "/" + obj.GetName()
	name := nodeName(obj)
	ip := internalIP(providerID)
	err = p.patchGeneric(ctx, obj, func(o *unstructured.Unstructured) error {
		im := contract.InfrastructureMachine()
		if err := im.ProviderID().Set(o, providerID); err != nil {
			return err
		}
		if err := im.Addresses().Set(o, []contract.MachineAddress{{Type: "InternalIP", Address: ip}, {Type: "Hostname", Address: name}}); err != nil {
			return err
		}
		return im.Provisioned(contract.V1Beta2).Set(o, true)
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, p.ensureNode(ctx, obj, m, providerID, ip)
}

// machineToInfraMachine maps a Machine to the GenericInfrastructureMachine it references.
func machineToInfraMachine(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	ref := m.Spec.InfrastructureRef
	if ref.APIGroup != infraMachineGVK.Group || ref.Kind != infraMachineGVK.Kind {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}}}
}

// internalIP is a stable address in 10.0.0.0/8 for a providerID.
func internalIP(providerID string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(providerID))
	v := h.Sum32()
	return fmt.Sprintf("10.%d.%d.%d", (v>>16)&0xff, (v>>8)&0xff, 1+v%254)
}
