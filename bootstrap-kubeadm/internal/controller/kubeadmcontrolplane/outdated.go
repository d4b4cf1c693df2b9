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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/kcprollout"
)

// machineParts are the objects a Machine was created with, read to tell whether it still matches
// the KubeadmControlPlane and to bring their metadata in line. Either is nil when it does not exist
// (yet, or any more): as upstream, what cannot be read never makes a Machine outdated, so a cache
// that lags or an API server that misbehaves never starts a rollout.
type machineParts struct {
	config *bootstrapv1.KubeadmConfig
	infra  *unstructured.Unstructured
}

// readMachineParts reads, from the cache, the KubeadmConfig and the InfraMachine of each Machine
// that is not being deleted, into s.parts by Machine name.
func (r *Reconciler) readMachineParts(ctx context.Context, s *scope) error {
	s.parts = make(map[string]machineParts, len(s.machines))
	var errs []error
	for _, m := range s.machines {
		if deleting(m) {
			continue
		}
		var p machineParts
		if ref := m.Spec.Bootstrap.ConfigRef; ref.Kind == "KubeadmConfig" && ref.APIGroup == bootstrapv1.GroupVersion.Group {
			cfg := &bootstrapv1.KubeadmConfig{}
			err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, cfg)
			switch {
			case err == nil:
				p.config = cfg
			case !apierrors.IsNotFound(err):
				errs = append(errs, fmt.Errorf("reading KubeadmConfig %s of Machine %s: %w", ref.Name, m.Name, err))
			}
		}
		if m.Spec.InfrastructureRef.IsDefined() {
			infra, _, err := external.Get(ctx, r.Client, m.Spec.InfrastructureRef, m.Namespace)
			switch {
			case err == nil:
				p.infra = infra
			case !apierrors.IsNotFound(err):
				errs = append(errs, fmt.Errorf("reading the InfraMachine of Machine %s: %w", m.Name, err))
			}
		}
		s.parts[m.Name] = p
	}
	if len(errs) > 0 {
		// Without every part, up-to-date counts would flip for a Machine that was merely not
		// read: the replica status keeps its last value instead.
		s.machinesRead = false
	}
	return errors.Join(errs...)
}

// outdated says why m must be replaced (see outdatedReason); empty when it is up to date.
func (s *scope) outdated(m *clusterv1.Machine) string {
	return outdatedReason(s.kcp, m, s.parts[m.Name], metav1.NewTime(s.now))
}

// isOutdated is outdated as a predicate, for plan and the choice of the Machine to remove.
func (s *scope) isOutdated(m *clusterv1.Machine) bool { return s.outdated(m) != "" }

// outdatedReason says why m must be replaced, naming what differs: its version, spec.rollout.after,
// certificates about to expire, the template its InfraMachine was cloned from, or its KubeadmConfig
// (kcprollout). Empty when m is up to date.
func outdatedReason(kcp *controlplanev1.KubeadmControlPlane, m *clusterv1.Machine, p machineParts, now metav1.Time) string {
	var configAnnotations map[string]string
	if p.config != nil {
		configAnnotations = p.config.Annotations
	}
	if why := kcprollout.MachineReason(rolloutSpec(kcp), m, configAnnotations, p.infra, now.Time); why != "" {
		return why
	}
	return kubeadmConfigDiffers(kcp, p.config)
}

// rolloutSpec is what of kcp's spec, besides kubeadmConfigSpec, decides whether a Machine is
// outdated.
func rolloutSpec(kcp *controlplanev1.KubeadmControlPlane) kcprollout.Spec {
	return kcprollout.Spec{
		Version:                kcp.Spec.Version,
		RolloutAfter:           kcp.Spec.Rollout.After,
		CertificatesExpiryDays: kcp.Spec.Rollout.Before.CertificatesExpiryDays,
		InfrastructureRef:      kcp.Spec.MachineTemplate.Spec.InfrastructureRef,
	}
}

// kubeadmConfigDiffers compares the Machine's KubeadmConfig with the one the KubeadmControlPlane
// would create for it now, and names the fields of spec.kubeadmConfigSpec that differ.
func kubeadmConfigDiffers(kcp *controlplanev1.KubeadmControlPlane, cfg *bootstrapv1.KubeadmConfig) string {
	if cfg == nil {
		return ""
	}
	have := jsonTree(cfg.Spec)
	want := kcprollout.RoleConfig(jsonTree(kcp.Spec.KubeadmConfigSpec), kcprollout.IsInitConfig(have))
	return kcprollout.ConfigDiffMessage(cfg.Name, kcprollout.ConfigDiff(want, have))
}

// isInitConfig tells the KubeadmConfig of the Machine that ran kubeadm init.
func isInitConfig(cfg *bootstrapv1.KubeadmConfig) bool {
	return kcprollout.IsInitConfig(jsonTree(cfg.Spec))
}

// jsonTree is v (plain API data) as a JSON tree, the form kcprollout compares.
func jsonTree(v any) map[string]any {
	raw, _ := json.Marshal(v) // plain data types: marshalling cannot fail
	var tree map[string]any
	_ = json.Unmarshal(raw, &tree)
	return tree
}
