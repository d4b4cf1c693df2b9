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
	"fmt"
	"time"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// certificatesExpiry is when m's certificates expire, as upstream reads it: the Machine's
// certificates-expiry annotation (a user's override), else its KubeadmConfig's, else
// status.certificatesExpiryDate. ok is false when none is known or the annotation is not RFC3339
// (then nothing is rolled out for it: an unreadable date must not replace the control plane).
func certificatesExpiry(m *clusterv1.Machine, cfg *bootstrapv1.KubeadmConfig) (expiry time.Time, source string, ok bool) {
	if v, found := m.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation]; found {
		t, err := time.Parse(time.RFC3339, v)
		return t, "Machine annotation " + clusterv1.MachineCertificatesExpiryDateAnnotation, err == nil
	}
	if cfg != nil {
		if v, found := cfg.Annotations[clusterv1.MachineCertificatesExpiryDateAnnotation]; found {
			t, err := time.Parse(time.RFC3339, v)
			return t, "KubeadmConfig annotation " + clusterv1.MachineCertificatesExpiryDateAnnotation, err == nil
		}
	}
	if d := m.Status.CertificatesExpiryDate; !d.IsZero() {
		return d.Time, "status.certificatesExpiryDate", true
	}
	return time.Time{}, "", false
}

// certificatesExpiring says why m must be replaced under spec.rollout.before.certificatesExpiryDays:
// its certificates expire within that many days of now. Empty otherwise.
func certificatesExpiring(kcp *controlplanev1.KubeadmControlPlane, m *clusterv1.Machine, cfg *bootstrapv1.KubeadmConfig, now time.Time) string {
	days := kcp.Spec.Rollout.Before.CertificatesExpiryDays
	if days <= 0 {
		return ""
	}
	expiry, source, ok := certificatesExpiry(m, cfg)
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
