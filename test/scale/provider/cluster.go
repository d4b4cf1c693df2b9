package provider

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/kubeconfig"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/secret"
	"capstan.dev/contracts/testing/crds"
)

var (
	infraClusterGVK    = crds.GenericInfrastructureClusterGVK
	controlPlaneGVK    = crds.GenericControlPlaneGVK
	bootstrapConfigGVK = crds.GenericBootstrapConfigGVK
	infraMachineGVK    = crds.GenericInfrastructureMachineGVK
)

func newObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// dueObject reads the object of req and its owner of ownerKind, when it is due for
// provisioning. It returns a nil object when there is nothing to do yet: the object
// is gone or deleting (nothing to release), its owner reference has not arrived
// (its arrival is an update event), or ProvisionDelay has not passed (the result
// requeues for then).
func (p *scaleProvider) dueObject(ctx context.Context, gvk schema.GroupVersionKind, req ctrl.Request, ownerKind string) (*unstructured.Unstructured, metav1.OwnerReference, ctrl.Result, error) {
	obj, err := p.getGeneric(ctx, gvk, req.NamespacedName)
	if err != nil || obj == nil || !obj.GetDeletionTimestamp().IsZero() {
		return nil, metav1.OwnerReference{}, ctrl.Result{}, err
	}
	ref, ok := ownerOfKind(obj, ownerKind)
	if !ok {
		return nil, metav1.OwnerReference{}, ctrl.Result{}, nil
	}
	if wait := p.waitBeforeProvisioning(obj, time.Now()); wait > 0 {
		return nil, ref, ctrl.Result{RequeueAfter: wait}, nil
	}
	return obj, ref, ctrl.Result{}, nil
}

// patchGeneric applies mutate to obj and writes what changed (nothing when the object
// already says it), so a steady object is never written.
func (p *scaleProvider) patchGeneric(ctx context.Context, obj *unstructured.Unstructured, mutate func(*unstructured.Unstructured) error) error {
	helper, err := patch.NewHelper(obj, p.client)
	if err != nil {
		return err
	}
	if err := mutate(obj); err != nil {
		return fmt.Errorf("setting the contract fields of %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	return helper.Patch(ctx, obj)
}

// reconcileInfraCluster provisions a GenericInfrastructureCluster owned by a Cluster:
// the Cluster's kubeconfig Secret first, then the endpoint and the provisioned signal.
func (p *scaleProvider) reconcileInfraCluster(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj, cluster, res, err := p.dueObject(ctx, infraClusterGVK, req, "Cluster")
	if obj == nil {
		return res, err
	}
	if err := p.ensureKubeconfig(ctx, obj.GetNamespace(), cluster); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, p.patchGeneric(ctx, obj, func(o *unstructured.Unstructured) error {
		ic := contract.InfrastructureCluster()
		if err := ic.ControlPlaneEndpoint().Set(o, p.endpoint); err != nil {
			return err
		}
		return ic.Provisioned(contract.V1Beta2).Set(o, true)
	})
}

// ensureKubeconfig creates <cluster>-kubeconfig, owned by the Cluster, unless it
// exists (whoever wrote it).
func (p *scaleProvider) ensureKubeconfig(ctx context.Context, namespace string, cluster metav1.OwnerReference) error {
	key := client.ObjectKey{Namespace: namespace, Name: secret.Name(cluster.Name, secret.Kubeconfig)}
	err := p.reader.Get(ctx, key, &corev1.Secret{})
	if !apierrors.IsNotFound(err) {
		return err
	}
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: cluster.Name}}
	s := kubeconfig.NewSecret(c, p.opts.WorkloadKubeconfig, metav1.OwnerReference{
		APIVersion: cluster.APIVersion, Kind: cluster.Kind, Name: cluster.Name, UID: cluster.UID})
	if err := p.client.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Secret %s: %w", key, err)
	}
	return nil
}

// reconcileControlPlane initializes a GenericControlPlane owned by a Cluster.
func (p *scaleProvider) reconcileControlPlane(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj, _, res, err := p.dueObject(ctx, controlPlaneGVK, req, "Cluster")
	if obj == nil {
		return res, err
	}
	return ctrl.Result{}, p.patchGeneric(ctx, obj, func(o *unstructured.Unstructured) error {
		return contract.ControlPlane().Initialized(contract.V1Beta2).Set(o, true)
	})
}
