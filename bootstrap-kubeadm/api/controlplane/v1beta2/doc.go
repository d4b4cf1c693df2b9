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

// Package v1beta2 holds the kubeadm control plane provider's API, group
// controlplane.cluster.x-k8s.io, version v1beta2: KubeadmControlPlane, which runs a Cluster's
// control plane as a set of Machines bootstrapped by kubeadm with stacked etcd, and
// KubeadmControlPlaneTemplate.
//
// Field names and JSON follow upstream Cluster API v1beta2 exactly for every field declared
// here; only a subset is declared (no machineNaming, readinessGates, node taints, rollout.before
// or external etcd: etcd is always stacked, which is why replicas must be odd).
//
// The package owns types, their markers and the constants controllers share (finalizer,
// annotations, conditions, reasons). It holds no controller logic and imports only the bootstrap
// group (for KubeadmConfigSpec) and the core contract types, never another provider. Admission
// rules are OpenAPI bounds, defaults and CEL rules, enforced by the apiserver without webhooks;
// CEL messages are built from bounded strings only.
//
// +kubebuilder:object:generate=true
// +groupName=controlplane.cluster.x-k8s.io
package v1beta2
