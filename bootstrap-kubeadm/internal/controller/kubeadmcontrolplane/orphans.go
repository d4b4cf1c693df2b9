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

package kubeadmcontrolplane

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/owner"
)

// sweepOrphanedClones deletes the InfraMachines and KubeadmConfigs createMachine made for a
// Machine that was never created: a controller stopped (kill -9, lost leadership) between
// creating them and creating the Machine leaves them behind, and the next attempt picks a new
// name. A clone is named after its Machine, labelled with this control plane and owned by it;
// one whose Machine is not among the control plane's is checked live before it goes, so a
// Machine the cache has not seen yet keeps its clones. Nothing is written while none is found.
func (r *Reconciler) sweepOrphanedClones(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if !s.machinesRead {
		return ctrl.Result{}, false, nil
	}
	candidates, err := r.clonesWithoutMachine(ctx, s)
	if err != nil || len(candidates) == 0 {
		return ctrl.Result{}, false, err
	}
	var errs []error
	for _, o := range candidates {
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}, &clusterv1.Machine{})
		switch {
		case err == nil:
			continue // created in a reconcile the cache has not caught up with
		case !apierrors.IsNotFound(err):
			errs = append(errs, fmt.Errorf("reading Machine %s: %w", o.GetName(), err))
			continue
		}
		ctrl.LoggerFrom(ctx).Info("Deleting an object created for a Machine that was never created", "object", klog.KObj(o),
			"kind", o.GetObjectKind().GroupVersionKind().Kind)
		if err := r.Client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s: %w", o.GetName(), err))
		}
	}
	return ctrl.Result{}, false, errors.Join(errs...)
}

// clonesWithoutMachine lists, from the cache, the KubeadmConfigs and InfraMachines (of the kind
// spec.machineTemplate.spec.infrastructureRef clones) of this control plane that no Machine of it
// is named after and that are not being deleted.
func (r *Reconciler) clonesWithoutMachine(ctx context.Context, s *scope) ([]client.Object, error) {
	mine := []client.ListOption{client.InNamespace(s.kcp.Namespace), client.MatchingLabels{clusterv1.MachineControlPlaneNameLabel: s.kcp.Name}}
	machines := map[string]bool{}
	for _, m := range s.machines {
		machines[m.Name] = true
	}
	orphaned := func(o client.Object) bool {
		return !machines[o.GetName()] && o.GetDeletionTimestamp().IsZero() && owner.HasUID(o, s.kcp.UID)
	}
	var out []client.Object
	configs := &bootstrapv1.KubeadmConfigList{}
	if err := r.Client.List(ctx, configs, mine...); err != nil {
		return nil, fmt.Errorf("listing the KubeadmConfigs of KubeadmControlPlane %s: %w", s.kcp.Name, err)
	}
	for i := range configs.Items {
		if c := &configs.Items[i]; orphaned(c) {
			c.SetGroupVersionKind(bootstrapv1.GroupVersion.WithKind("KubeadmConfig"))
			out = append(out, c)
		}
	}
	tmpl := s.kcp.Spec.MachineTemplate.Spec.InfrastructureRef
	kind, ok := strings.CutSuffix(tmpl.Kind, clusterv1.TemplateSuffix)
	if !ok || kind == "" {
		return out, nil // not a template: createMachine clones nothing of it
	}
	gk := tmpl.GroupKind()
	gk.Kind = kind
	v, err := contract.GetContractVersion(ctx, r.Client, gk)
	if err != nil {
		return nil, fmt.Errorf("finding the contract of %s: %w", gk, err)
	}
	infras := &unstructured.UnstructuredList{}
	infras.SetGroupVersionKind(v.GroupVersionKind(gk).GroupVersion().WithKind(kind + "List"))
	if err := r.Client.List(ctx, infras, mine...); err != nil {
		return nil, fmt.Errorf("listing the %s objects of KubeadmControlPlane %s: %w", kind, s.kcp.Name, err)
	}
	for i := range infras.Items {
		if o := &infras.Items[i]; orphaned(o) {
			out = append(out, o)
		}
	}
	return out, nil
}
