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

package kcprollout

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Spec is what of a KubeadmControlPlane's spec, besides spec.kubeadmConfigSpec (ConfigDiff),
// decides whether a Machine is outdated.
type Spec struct {
	// Version is spec.version.
	Version string
	// RolloutAfter is spec.rollout.after.
	RolloutAfter metav1.Time
	// CertificatesExpiryDays is spec.rollout.before.certificatesExpiryDays.
	CertificatesExpiryDays int32
	// InfrastructureRef is spec.machineTemplate.spec.infrastructureRef.
	InfrastructureRef clusterv1.ContractVersionedObjectReference
}

// MachineReason says why m must be replaced for anything but its KubeadmConfig's content: its
// version, spec.rollout.after, certificates about to expire (configAnnotations are its
// KubeadmConfig's, nil when it has none), or the template its InfraMachine was cloned from
// (infra nil when it cannot be read). Empty when none applies. Metadata and deletion timeouts are
// not looked at: they are synced in place, as upstream does.
func MachineReason(spec Spec, m *clusterv1.Machine, configAnnotations map[string]string, infra *unstructured.Unstructured, now time.Time) string {
	if m.Spec.Version != spec.Version {
		return fmt.Sprintf("version %s, want %s", m.Spec.Version, spec.Version)
	}
	if after := spec.RolloutAfter; !after.IsZero() && !now.Before(after.Time) && m.CreationTimestamp.Before(&after) {
		return fmt.Sprintf("created before spec.rollout.after %s", after.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if why := CertificatesExpiring(spec.CertificatesExpiryDays, m, configAnnotations, now); why != "" {
		return why
	}
	return InfraTemplateDiffers(spec.InfrastructureRef, infra)
}

// InfraTemplateDiffers compares the cloned-from annotations of the InfraMachine with the
// KubeadmControlPlane's infrastructureRef. An InfraMachine without them (adopted, or made by
// hand), or that cannot be read (nil), is not judged, as upstream: what cannot be read never
// starts a rollout.
func InfraTemplateDiffers(ref clusterv1.ContractVersionedObjectReference, infra *unstructured.Unstructured) string {
	if infra == nil {
		return ""
	}
	name, ok1 := infra.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation]
	groupKind, ok2 := infra.GetAnnotations()[clusterv1.TemplateClonedFromGroupKindAnnotation]
	if !ok1 || !ok2 {
		return ""
	}
	wantGroupKind := schema.GroupKind{Group: ref.APIGroup, Kind: ref.Kind}.String()
	if name == ref.Name && groupKind == wantGroupKind {
		return ""
	}
	return fmt.Sprintf("%s %s was cloned from %s %s, spec.machineTemplate.spec.infrastructureRef is %s %s",
		infra.GetKind(), infra.GetName(), groupKind, name, wantGroupKind, ref.Name)
}

// CertificatesExpiry is when m's certificates expire, as upstream reads it: the Machine's
// certificates-expiry annotation (a user's override), else its KubeadmConfig's
// (configAnnotations), else status.certificatesExpiryDate. ok is false when none is known or the
// annotation is not RFC3339 (then nothing is rolled out for it: an unreadable date must not
// replace the control plane).
func CertificatesExpiry(m *clusterv1.Machine, configAnnotations map[string]string) (expiry time.Time, source string, ok bool) {
	if v, found := m.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation]; found {
		t, err := time.Parse(time.RFC3339, v)
		return t, "Machine annotation " + clusterv1.MachineCertificatesExpiryDateAnnotation, err == nil
	}
	if v, found := configAnnotations[clusterv1.MachineCertificatesExpiryDateAnnotation]; found {
		t, err := time.Parse(time.RFC3339, v)
		return t, "KubeadmConfig annotation " + clusterv1.MachineCertificatesExpiryDateAnnotation, err == nil
	}
	if d := m.Status.CertificatesExpiryDate; !d.IsZero() {
		return d.Time, "status.certificatesExpiryDate", true
	}
	return time.Time{}, "", false
}

// CertificatesExpiring says why m must be replaced under spec.rollout.before.certificatesExpiryDays
// (days): its certificates expire within that many days of now. Empty otherwise.
func CertificatesExpiring(days int32, m *clusterv1.Machine, configAnnotations map[string]string, now time.Time) string {
	if days <= 0 {
		return ""
	}
	expiry, source, ok := CertificatesExpiry(m, configAnnotations)
	if !ok {
		return ""
	}
	threshold := now.Add(time.Duration(days) * 24 * time.Hour)
	if expiry.After(threshold) {
		return ""
	}
	return fmt.Sprintf("certificates expire at %s (%s), within spec.rollout.before.certificatesExpiryDays %d",
		expiry.UTC().Format(time.RFC3339), source, days)
}
