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

package v1beta2

import (
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// KubeadmConfig's Ready condition and reasons. The Machine controller mirrors Ready into the
// Machine's BootstrapConfigReady condition, so its message is what users see on the Machine.
const (
	// KubeadmConfigReadyCondition is true when the KubeadmConfig is not deleting and its
	// DataSecretAvailable and CertificatesAvailable conditions are true.
	KubeadmConfigReadyCondition = clusterv1.ReadyCondition

	// KubeadmConfigReadyReason is used when the KubeadmConfig is ready.
	KubeadmConfigReadyReason = clusterv1.ReadyReason

	// KubeadmConfigNotReadyReason is used when the KubeadmConfig is not ready.
	KubeadmConfigNotReadyReason = clusterv1.NotReadyReason

	// KubeadmConfigReadyUnknownReason is used when readiness cannot be determined.
	KubeadmConfigReadyUnknownReason = clusterv1.ReadyUnknownReason
)

// KubeadmConfig's DataSecretAvailable condition and reasons.
const (
	// KubeadmConfigDataSecretAvailableCondition is true once the bootstrap data Secret exists.
	KubeadmConfigDataSecretAvailableCondition = "DataSecretAvailable"

	// KubeadmConfigDataSecretAvailableReason is used when the bootstrap data Secret exists.
	KubeadmConfigDataSecretAvailableReason = clusterv1.AvailableReason

	// KubeadmConfigDataSecretNotAvailableReason is used while the bootstrap data Secret does not
	// exist yet; the message says what it waits for.
	KubeadmConfigDataSecretNotAvailableReason = clusterv1.NotAvailableReason
)

// KubeadmConfig's CertificatesAvailable condition and reasons.
const (
	// KubeadmConfigCertificatesAvailableCondition is true when the cluster certificates the
	// bootstrap data needs exist.
	KubeadmConfigCertificatesAvailableCondition = "CertificatesAvailable"

	// KubeadmConfigCertificatesAvailableReason is used when the certificates exist.
	KubeadmConfigCertificatesAvailableReason = clusterv1.AvailableReason

	// KubeadmConfigCertificatesAvailableInternalErrorReason is used on unexpected errors reading or
	// generating the certificates.
	KubeadmConfigCertificatesAvailableInternalErrorReason = clusterv1.InternalErrorReason
)
