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

// Package v1beta1 serves KubeadmConfig and KubeadmConfigTemplate (group
// bootstrap.cluster.x-k8s.io) at version v1beta1, with upstream Cluster API's v1beta1 JSON field
// names, so that manifests and clients written for upstream's v1beta1 keep working. It is a
// spoke: v1beta2 (capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2) is the hub and the only
// stored version; the conversion functions here run in the bootstrap-kubeadm manager's
// conversion webhook (capstan.dev/contracts/conversionwebhook). KubeadmConfigSpec is also what
// the control plane group's v1beta1 embeds.
//
// What v1beta2 has no field for (the kubeadm apiVersion/kind, clusterName, kubernetesVersion,
// networking, useExperimentalRetryJoin, sub-second durations) is kept in the
// conversion-data annotation (capstan.dev/contracts/conversion), as is what v1beta1 cannot say
// (false vs unset, the kubeadm timeouts it has no field for, nil vs empty lists). Status
// conditions are as v1beta1 had them: status.conditions is the v1beta1 list (with severity;
// Capstan keeps no deprecated status, so Ready, DataSecretAvailable and CertificatesAvailable are
// derived from the v1beta2 conditions on every read and never stored) and the v1beta2 conditions
// appear under status.v1beta2.conditions.
//
// The schema carries no CEL rules: the v1beta2 rules are not repeated here, so an object written
// at v1beta1 is checked by the v1beta1 schema only (as upstream, which validates in webhooks).
//
// The CRD versions are generated unserved: the manager turns v1beta1 on once its conversion
// webhook is ready to convert it, so that a v1beta1 object can never be stored unconverted.
//
// +kubebuilder:object:generate=true
// +groupName=bootstrap.cluster.x-k8s.io
package v1beta1
