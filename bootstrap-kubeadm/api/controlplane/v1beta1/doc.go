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

// Package v1beta1 serves KubeadmControlPlane and KubeadmControlPlaneTemplate (group
// controlplane.cluster.x-k8s.io) at version v1beta1, with upstream Cluster API's v1beta1 JSON
// field names, so that manifests and clients written for upstream's v1beta1 keep working. It is
// a spoke: v1beta2 (capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2) is the hub and the
// only stored version; the conversion functions here run in the bootstrap-kubeadm manager's
// conversion webhook. The embedded kubeadmConfigSpec converts as the bootstrap group's v1beta1
// does (capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1).
//
// Status is as v1beta1 had it: the legacy replica counters (readyReplicas, updatedReplicas,
// unavailableReplicas) and ready are derived from the v1beta2 counters (Capstan keeps no
// deprecated status), status.conditions shows upstream's v1beta1 conditions derived from the
// v1beta2 ones (Ready and Available from Available, CertificatesAvailable, MachinesReady,
// MachinesSpecUpToDate from MachinesUpToDate, ControlPlaneComponentsHealthy, EtcdClusterHealthy;
// never stored), status.lastRemediation is upstream's v1beta1 shape of the v1beta2 one, and the
// v1beta2 conditions and counters appear under status.v1beta2. What v1beta2 cannot hold (the infrastructure reference's version,
// uid and fieldPath, sub-second durations, the kubeadm fields v1beta2 dropped) is kept in the
// conversion-data annotation. The schema repeats none of the v1beta2 CEL rules.
//
// The CRD versions are generated unserved: the manager turns v1beta1 on once its conversion
// webhook is ready to convert it, so that a v1beta1 object can never be stored unconverted.
//
// +kubebuilder:object:generate=true
// +groupName=controlplane.cluster.x-k8s.io
package v1beta1
