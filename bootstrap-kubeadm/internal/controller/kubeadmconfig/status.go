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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes the conditions from what the reconcile found. It is the only place that
// writes conditions (besides Paused, which contracts/predicates owns) and it is deterministic,
// so a steady KubeadmConfig is never re-written.
func setStatus(s *scope, reconcileErr error) {
	if s.leaveStatus {
		return
	}
	cfg := s.config
	cfg.Status.ObservedGeneration = cfg.Generation
	conditions.Set(cfg, dataSecretCondition(s, reconcileErr))
	if c, ok := certificatesCondition(s); ok {
		conditions.Set(cfg, c)
	}
	conditions.Set(cfg, readyCondition(cfg))
}

func dataSecretCondition(s *scope, reconcileErr error) metav1.Condition {
	t := bootstrapv1.KubeadmConfigDataSecretAvailableCondition
	cfg := s.config
	switch {
	case s.waitingFor != "":
		return conditions.False(t, bootstrapv1.KubeadmConfigDataSecretNotAvailableReason, s.waitingFor)
	case cfg.Status.DataSecretName != "" && ptr.Deref(cfg.Status.Initialization.DataSecretCreated, false):
		return conditions.True(t, bootstrapv1.KubeadmConfigDataSecretAvailableReason, "")
	case reconcileErr != nil:
		return conditions.False(t, bootstrapv1.KubeadmConfigDataSecretNotAvailableReason,
			fmt.Sprintf("Writing the bootstrap data failed, retrying: %v", reconcileErr))
	}
	return conditions.False(t, bootstrapv1.KubeadmConfigDataSecretNotAvailableReason, "The bootstrap data has not been written yet")
}

// certificatesCondition reports on the certificates when this reconcile looked at them; ok is
// false when it did not, so the last observation stays.
func certificatesCondition(s *scope) (c metav1.Condition, ok bool) {
	t := bootstrapv1.KubeadmConfigCertificatesAvailableCondition
	switch {
	case s.certs == nil:
		return metav1.Condition{}, false
	case len(s.certs.missing) > 0:
		return conditions.False(t, clusterv1.NotAvailableReason, fmt.Sprintf(
			"Secret(s) %s do not exist: the first control plane Machine of the Cluster generates them when it initializes the control plane",
			strings.Join(s.certs.missing, ", "))), true
	case s.certs.err != nil:
		return conditions.Unknown(t, bootstrapv1.KubeadmConfigCertificatesAvailableInternalErrorReason, s.certs.err.Error()), true
	}
	return conditions.True(t, bootstrapv1.KubeadmConfigCertificatesAvailableReason, ""), true
}

// readyCondition is True when the data Secret is available and no certificate problem is known.
func readyCondition(cfg *bootstrapv1.KubeadmConfig) metav1.Condition {
	t := bootstrapv1.KubeadmConfigReadyCondition
	var notReady []string
	for _, ct := range []string{bootstrapv1.KubeadmConfigDataSecretAvailableCondition, bootstrapv1.KubeadmConfigCertificatesAvailableCondition} {
		c := conditions.Get(cfg, ct)
		switch {
		case c == nil && ct == bootstrapv1.KubeadmConfigCertificatesAvailableCondition:
			// Not looked at (the data was provided, or rendering has not got that far).
		case c == nil:
			notReady = append(notReady, ct+" is not known yet")
		case c.Status != metav1.ConditionTrue:
			notReady = append(notReady, ct+": "+c.Message)
		}
	}
	if len(notReady) == 0 {
		return conditions.True(t, bootstrapv1.KubeadmConfigReadyReason, "")
	}
	return conditions.False(t, bootstrapv1.KubeadmConfigNotReadyReason, strings.Join(notReady, "; "))
}
