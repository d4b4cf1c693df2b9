package external

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// Get reads the object ref points at in namespace, as unstructured, together with
// the contract version its CRD declares. Errors wrap the API error, so callers can
// test apierrors.IsNotFound on the result.
func Get(ctx context.Context, c client.Reader, ref clusterv1.ContractVersionedObjectReference, namespace string) (*unstructured.Unstructured, contract.Version, error) {
	if !ref.IsDefined() {
		return nil, contract.Version{}, fmt.Errorf("reference is not set")
	}
	gk := ref.GroupKind()
	v, err := contract.GetContractVersion(ctx, c, gk)
	if err != nil {
		return nil, contract.Version{}, fmt.Errorf("finding the contract of %s: %w", gk, err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v.GroupVersionKind(gk))
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, u); err != nil {
		return nil, v, fmt.Errorf("reading %s %s/%s: %w", ref.Kind, namespace, ref.Name, err)
	}
	return u, v, nil
}
