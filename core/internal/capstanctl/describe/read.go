package describe

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// Read fetches the Cluster namespace/name and the objects Build places under it.
// A referenced provider object that cannot be read because it or its CRD is
// missing does not fail the read: the tree shows why instead, since that is
// exactly what a user describing a broken Cluster needs to see.
func Read(ctx context.Context, c client.Reader, namespace, name string) (*Objects, error) {
	cluster, err := clusterclient.GetCluster(ctx, c, namespace, name)
	if err != nil {
		return nil, err
	}
	objs := &Objects{Cluster: cluster}
	if objs.Infrastructure, err = readExternal(ctx, c, cluster.Spec.InfrastructureRef, namespace); err != nil {
		return nil, err
	}
	if objs.ControlPlane, err = readExternal(ctx, c, cluster.Spec.ControlPlaneRef, namespace); err != nil {
		return nil, err
	}

	mds := &clusterv1.MachineDeploymentList{}
	if err := c.List(ctx, mds, client.InNamespace(namespace)); err != nil {
		return nil, clusterclient.Explain(err, "MachineDeployments in namespace "+namespace)
	}
	for _, md := range mds.Items {
		if md.Spec.ClusterName == name {
			objs.MachineDeployments = append(objs.MachineDeployments, md)
		}
	}
	mps := &clusterv1.MachinePoolList{}
	if err := c.List(ctx, mps, client.InNamespace(namespace)); err != nil {
		return nil, clusterclient.Explain(err, "MachinePools in namespace "+namespace)
	}
	for _, mp := range mps.Items {
		if mp.Spec.ClusterName == name {
			objs.MachinePools = append(objs.MachinePools, mp)
		}
	}
	machines := &clusterv1.MachineList{}
	if err := c.List(ctx, machines, client.InNamespace(namespace)); err != nil {
		return nil, clusterclient.Explain(err, "Machines in namespace "+namespace)
	}
	for _, m := range machines.Items {
		if m.Spec.ClusterName == name {
			objs.Machines = append(objs.Machines, m)
		}
	}
	return objs, nil
}

// readExternal reads a referenced provider object; nil when ref is unset.
func readExternal(ctx context.Context, c client.Reader, ref clusterv1.ContractVersionedObjectReference, namespace string) (*External, error) {
	if !ref.IsDefined() {
		return nil, nil
	}
	ext := &External{Ref: ref}
	obj, _, err := external.Get(ctx, c, ref, namespace)
	switch {
	case err == nil:
		ext.Object = obj
	case apierrors.IsNotFound(err):
		ext.Err = fmt.Sprintf("%s %s/%s not found", ref.Kind, namespace, ref.Name)
	case errors.Is(err, contract.ErrCRDNotFound), errors.Is(err, contract.ErrNoContractLabel),
		errors.Is(err, contract.ErrMalformedContractLabel):
		ext.Err = err.Error()
	default:
		return nil, clusterclient.Explain(err, fmt.Sprintf("%s %s/%s", ref.Kind, namespace, ref.Name))
	}
	return ext, nil
}

// ReadResourceSets returns the ClusterResourceSets bound to the Cluster, as its
// ClusterResourceSetBinding (named like the Cluster) lists them, sorted by name. A set
// the binding still names but that is gone is left out; no binding means none.
func ReadResourceSets(ctx context.Context, c client.Reader, namespace, cluster string) ([]addonsv1.ClusterResourceSet, error) {
	binding := &addonsv1.ClusterResourceSetBinding{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: cluster}, binding); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, clusterclient.Explain(err, fmt.Sprintf("ClusterResourceSetBinding %s/%s", namespace, cluster))
	}
	var out []addonsv1.ClusterResourceSet
	for _, b := range binding.Spec.Bindings {
		crs := &addonsv1.ClusterResourceSet{}
		err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: b.ClusterResourceSetName}, crs)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, clusterclient.Explain(err, fmt.Sprintf("ClusterResourceSet %s/%s", namespace, b.ClusterResourceSetName))
		}
		out = append(out, *crs)
	}
	return sortedByName(out), nil
}
