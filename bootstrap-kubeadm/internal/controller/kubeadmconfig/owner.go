/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package kubeadmconfig

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// configOwner is the controller owner of a KubeadmConfig: a Machine, or a MachinePool whose
// instances all boot from the one data Secret. Exactly one of the two is set.
type configOwner struct {
	machine *clusterv1.Machine
	pool    *clusterv1.MachinePool
}

// found is false until readOwner has read the owner.
func (o configOwner) found() bool { return o.machine != nil || o.pool != nil }

func (o configOwner) kind() string {
	if o.pool != nil {
		return "MachinePool"
	}
	return "Machine"
}

func (o configOwner) name() string {
	if o.pool != nil {
		return o.pool.Name
	}
	return o.machine.Name
}

func (o configOwner) clusterName() string {
	if o.pool != nil {
		return o.pool.Spec.ClusterName
	}
	return o.machine.Spec.ClusterName
}

// spec is the Machine's spec, or the spec of the MachinePool's instances.
func (o configOwner) spec() *clusterv1.MachineSpec {
	if o.pool != nil {
		return &o.pool.Spec.Template.Spec
	}
	return &o.machine.Spec
}

// isControlPlane is true for a control plane Machine. A MachinePool is always a pool of
// workers: it never initializes the control plane nor joins it.
func (o configOwner) isControlPlane() bool {
	if o.pool != nil {
		return false
	}
	_, ok := o.machine.Labels[clusterv1.MachineControlPlaneLabel]
	return ok
}

func (o configOwner) role() kubeadm.Role {
	if o.isControlPlane() {
		return kubeadm.ControlPlane
	}
	return kubeadm.Worker
}

// tokenConsumed is true once the token has done its job and is left to expire: the Machine
// has joined (status.nodeRef). A MachinePool never is: a scale-up may boot a new instance
// from the same data at any time.
func (o configOwner) tokenConsumed() bool {
	return o.machine != nil && o.machine.Status.NodeRef.IsDefined()
}

// rotatesToken is true for a MachinePool whose infrastructure is provisioned: its instances may
// boot at any time from now on, so the token is replaced (and the data re-rendered) before it
// expires instead of having its expiration pushed out forever.
func (o configOwner) rotatesToken() bool {
	return o.pool != nil && ptr.Deref(o.pool.Status.Initialization.InfrastructureProvisioned, false)
}

// readOwner reads the controller owner of cfg. What is missing or unsupported becomes a wait.
func (r *Reconciler) readOwner(ctx context.Context, s *scope) error {
	cfg := s.config
	ref := metav1.GetControllerOf(cfg)
	if ref == nil {
		s.wait("Waiting for a Machine or MachinePool to own this KubeadmConfig: the core controllers become its controller owner once a Machine's spec.bootstrap.configRef or a MachinePool's spec.template.spec.bootstrap.configRef names KubeadmConfig %s", cfg.Name)
		return nil
	}
	var obj client.Object
	switch {
	case isCoreRef(ref, "Machine"):
		s.owner.machine = &clusterv1.Machine{}
		obj = s.owner.machine
	case isCoreRef(ref, "MachinePool"):
		s.owner.pool = &clusterv1.MachinePool{}
		obj = s.owner.pool
	default:
		s.wait("KubeadmConfig is controlled by %s %s: only Machines and MachinePools are supported as owners", ref.Kind, ref.Name)
		return nil
	}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: cfg.Namespace, Name: ref.Name}, obj)
	switch {
	case apierrors.IsNotFound(err):
		s.owner = configOwner{}
		s.wait("Waiting for %s %s, the controller owner of this KubeadmConfig, to exist", ref.Kind, ref.Name)
	case err != nil:
		return fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
	}
	return nil
}

func isCoreRef(ref *metav1.OwnerReference, kind string) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == clusterv1.GroupVersion.Group && ref.Kind == kind
}

// machineToConfig enqueues the KubeadmConfig a Machine's spec.bootstrap.configRef names.
func machineToConfig(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	return configRequest(m.Namespace, m.Spec.Bootstrap.ConfigRef)
}

// machinePoolToConfig enqueues the KubeadmConfig a MachinePool's
// spec.template.spec.bootstrap.configRef names.
func machinePoolToConfig(_ context.Context, o client.Object) []reconcile.Request {
	mp, ok := o.(*clusterv1.MachinePool)
	if !ok {
		return nil
	}
	return configRequest(mp.Namespace, mp.Spec.Template.Spec.Bootstrap.ConfigRef)
}

func configRequest(namespace string, ref clusterv1.ContractVersionedObjectReference) []reconcile.Request {
	if ref.Kind != "KubeadmConfig" || ref.APIGroup != bootstrapv1.GroupVersion.Group || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: namespace, Name: ref.Name}}}
}
