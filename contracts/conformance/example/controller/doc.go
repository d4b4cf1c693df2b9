// Package controller is the example providers' reconcilers: ExampleCluster and
// ExampleMachine (an infrastructure provider whose "machines" exist as soon as
// they are asked for) and ExampleConfig (a bootstrap provider rendering a
// cloud-config). Each reconciler follows the contract's workflow step by step —
// find the owner, honour pause, add the finalizer, wait for what the contract
// says to wait for, provision, report the signal — and nothing more, so that a
// provider author can read it next to docs/provider-guide.md.
//
// The three reconcilers share one package, unlike Capstan's providers (one
// controller per package), to keep the example in a few short files. The package
// must stay free of anything the contract does not ask for: it is what the
// conformance kit (capstan.dev/contracts/conformance) is proven against.
package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ownerNamed is the name of obj's owner of the given core kind, or "".
func ownerNamed(obj client.Object, kind string) string {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && gv.Group == clusterv1.GroupVersion.Group && ref.Kind == kind {
			return ref.Name
		}
	}
	return ""
}

// getOptional reads name into obj; a missing object is (false, nil).
func getOptional(ctx context.Context, c client.Client, namespace, name string, obj client.Object) (bool, error) {
	if name == "" {
		return false, nil
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return false, nil
		}
		return false, fmt.Errorf("reading %T %s/%s: %w", obj, namespace, name, err)
	}
	return true, nil
}
