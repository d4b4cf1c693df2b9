package machinepool

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
)

// externalRequeue is how often a pool re-reads a referenced object that does not exist
// yet: no watch can deliver its creation, because it carries no owner reference to the
// pool until the pool adopts it.
const externalRequeue = 10 * time.Second

// adopt makes the pool the controller owner of its bootstrap config or InfraMachinePool
// and labels it with the Cluster name, as the Machine controller does for its objects.
func (r *Reconciler) adopt(ctx context.Context, mp *clusterv1.MachinePool, obj *unstructured.Unstructured) error {
	isController, blockDeletion := true, true
	return external.Adopt(ctx, r.Client, obj, metav1.OwnerReference{
		APIVersion: clusterv1.GroupVersion.String(), Kind: "MachinePool", Name: mp.Name, UID: mp.UID,
		Controller: &isController, BlockOwnerDeletion: &blockDeletion,
	}, mp.Spec.ClusterName, nil)
}

// The InfraMachinePool contract fields the core reads. contracts/contract has no
// InfraMachinePool accessors yet; these live here until a second user needs them.
// provisioned is at the same paths as an InfraMachine's (status.initialization.provisioned
// under v1beta2, status.ready under v1beta1), so contract's accessor serves.

// infraPoolProvisioned reads status.initialization.provisioned (v1beta2) or status.ready (v1beta1).
func infraPoolProvisioned(obj *unstructured.Unstructured, v contract.ContractVersion) (bool, error) {
	p, err := contract.InfrastructureMachine().Provisioned(v).Get(obj)
	if err != nil {
		if errors.Is(err, contract.ErrFieldNotFound) {
			return false, nil
		}
		return false, err
	}
	return *p, nil
}

// infraPoolProviderIDList reads spec.providerIDList; found is false when the provider
// has not written it yet.
func infraPoolProviderIDList(obj *unstructured.Unstructured) (ids []string, found bool, err error) {
	raw, found, err := unstructured.NestedFieldNoCopy(obj.Object, "spec", "providerIDList")
	if err != nil || !found || raw == nil {
		return nil, false, err
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, false, fmt.Errorf("spec.providerIDList of %s %s/%s is a %T, not a list of strings", obj.GetKind(), obj.GetNamespace(), obj.GetName(), raw)
	}
	ids = make([]string, 0, len(items))
	for i, item := range items {
		id, ok := item.(string)
		if !ok {
			return nil, false, fmt.Errorf("spec.providerIDList[%d] of %s %s/%s is a %T, not a string", i, obj.GetKind(), obj.GetNamespace(), obj.GetName(), item)
		}
		ids = append(ids, id)
	}
	return ids, true, nil
}

// infraPoolReplicas reads status.replicas; nil when the provider does not report it.
func infraPoolReplicas(obj *unstructured.Unstructured) (*int32, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(obj.Object, "status", "replicas")
	if err != nil || !found || raw == nil {
		return nil, err
	}
	var n int64
	switch v := raw.(type) {
	case int64:
		n = v
	case float64:
		if v != float64(int64(v)) {
			return nil, fmt.Errorf("status.replicas of %s %s/%s is %v, not a whole number", obj.GetKind(), obj.GetNamespace(), obj.GetName(), v)
		}
		n = int64(v)
	default:
		return nil, fmt.Errorf("status.replicas of %s %s/%s is a %T, not a number", obj.GetKind(), obj.GetNamespace(), obj.GetName(), raw)
	}
	if n < 0 || n > 1<<31-1 {
		return nil, fmt.Errorf("status.replicas of %s %s/%s is %d, out of range", obj.GetKind(), obj.GetNamespace(), obj.GetName(), n)
	}
	r := int32(n)
	return &r, nil
}

// objectName is "Kind namespace/name" for messages.
func objectName(kind string, obj client.Object) string {
	return fmt.Sprintf("%s %s/%s", kind, obj.GetNamespace(), obj.GetName())
}
