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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// templateMetadataAnnotation records, on each Machine, KubeadmConfig and InfraMachine, the keys of
// the labels and annotations the KubeadmControlPlane put there from spec.machineTemplate.metadata.
// Upstream tracks the same with server-side apply field ownership; a record on the object does it
// without a second write after every creation. A key leaves an object only when it is in the record
// and no longer in the template: what users or other controllers put there stays. Objects made
// before the record existed have none, so none of their keys is ever removed.
const templateMetadataAnnotation = "controlplane.cluster.x-k8s.io/machine-template-metadata"

// templateKeys are the keys recorded in templateMetadataAnnotation.
type templateKeys struct {
	Labels      []string `json:"labels,omitempty"`
	Annotations []string `json:"annotations,omitempty"`
}

// recordFor is the templateMetadataAnnotation value for the template's current metadata.
func recordFor(meta clusterv1.ObjectMeta) string {
	rec := templateKeys{Labels: slices.Sorted(maps.Keys(meta.Labels)), Annotations: slices.Sorted(maps.Keys(meta.Annotations))}
	raw, _ := json.Marshal(rec) // two string lists: marshalling cannot fail
	return string(raw)
}

// withTemplateMetadata returns the labels and annotations obj should have: the template's, minus
// the recorded keys the template no longer has, with the record brought up to date. changed is
// false when obj already has them.
func withTemplateMetadata(obj client.Object, meta clusterv1.ObjectMeta) (labels, annotations map[string]string, changed bool) {
	labels, annotations = maps.Clone(obj.GetLabels()), maps.Clone(obj.GetAnnotations())
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	var old templateKeys
	if raw, ok := annotations[templateMetadataAnnotation]; ok {
		_ = json.Unmarshal([]byte(raw), &old) // a mangled record removes nothing
	}
	apply := func(current, want map[string]string, recorded []string) {
		for _, k := range recorded {
			if _, keep := want[k]; !keep {
				delete(current, k)
			}
		}
		maps.Copy(current, want)
	}
	apply(labels, meta.Labels, old.Labels)
	apply(annotations, meta.Annotations, old.Annotations)
	annotations[templateMetadataAnnotation] = recordFor(meta)
	changed = !maps.Equal(labels, obj.GetLabels()) || !maps.Equal(annotations, obj.GetAnnotations())
	return labels, annotations, changed
}

// syncMachines brings spec.machineTemplate.metadata onto the Machines, their KubeadmConfigs and
// InfraMachines, and spec.machineTemplate.spec.{deletion,readinessGates,taints} onto the Machines,
// in place: as upstream, none needs a new Machine. Deleting Machines are left alone. Only objects that differ are
// written.
func (r *Reconciler) syncMachines(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	var errs []error
	for _, m := range s.machines {
		if deleting(m) {
			continue
		}
		errs = append(errs, r.syncMachine(ctx, s.kcp, m))
		p := s.parts[m.Name]
		if p.config != nil {
			errs = append(errs, r.syncMetadata(ctx, s.kcp, p.config))
		}
		if p.infra != nil {
			errs = append(errs, r.syncMetadata(ctx, s.kcp, p.infra))
		}
	}
	return ctrl.Result{}, false, errors.Join(errs...)
}

// syncMetadata patches obj's labels and annotations to the template's, when they differ.
func (r *Reconciler) syncMetadata(ctx context.Context, kcp *controlplanev1.KubeadmControlPlane, obj client.Object) error {
	labels, annotations, changed := withTemplateMetadata(obj, kcp.Spec.MachineTemplate.ObjectMeta)
	if !changed {
		return nil
	}
	base := obj.DeepCopyObject().(client.Object)
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
	ctrl.LoggerFrom(ctx).Info("Updating labels and annotations from spec.machineTemplate.metadata",
		"object", klog.KObj(obj), "kind", obj.GetObjectKind().GroupVersionKind().Kind)
	if err := r.Client.Patch(ctx, obj, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("updating the labels and annotations of %s: %w", obj.GetName(), err)
	}
	return nil
}

// syncMachine patches m's metadata, deletion timeouts, readiness gates and taints to the
// template's, when they differ. A timeout the template leaves unset keeps the Machine's value: the
// Machine API defaults some. Taints are the template's exactly, readiness gates the
// KubeadmControlPlane's own (machineReadinessGates) and the template's: the KubeadmControlPlane
// owns its Machines' specs.
func (r *Reconciler) syncMachine(ctx context.Context, kcp *controlplanev1.KubeadmControlPlane, m *clusterv1.Machine) error {
	labels, annotations, changed := withTemplateMetadata(m, kcp.Spec.MachineTemplate.ObjectMeta)
	tmpl := kcp.Spec.MachineTemplate.Spec
	gates, taints := m.Spec.ReadinessGates, m.Spec.Taints
	if want := machineReadinessGates(kcp); !slices.Equal(gates, want) {
		gates, changed = want, true
	}
	if !slices.Equal(taints, tmpl.Taints) {
		taints, changed = slices.Clone(tmpl.Taints), true
	}
	want, have := kcp.Spec.MachineTemplate.Spec.Deletion, m.Spec.Deletion
	deletion := have
	for _, f := range []struct{ want, have **int32 }{
		{&want.NodeDrainTimeoutSeconds, &deletion.NodeDrainTimeoutSeconds},
		{&want.NodeVolumeDetachTimeoutSeconds, &deletion.NodeVolumeDetachTimeoutSeconds},
		{&want.NodeDeletionTimeoutSeconds, &deletion.NodeDeletionTimeoutSeconds},
	} {
		if *f.want != nil && ptr.Deref(*f.have, -1) != **f.want {
			*f.have = ptr.To(**f.want)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	base := m.DeepCopy()
	m.SetLabels(labels)
	m.SetAnnotations(annotations)
	m.Spec.Deletion = deletion
	m.Spec.ReadinessGates, m.Spec.Taints = gates, taints
	ctrl.LoggerFrom(ctx).Info("Updating Machine from spec.machineTemplate in place", "Machine", klog.KObj(m))
	if err := r.Client.Patch(ctx, m, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("updating Machine %s from spec.machineTemplate: %w", m.Name, err)
	}
	return nil
}
