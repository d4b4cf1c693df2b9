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

// Package v1beta2 holds the core Cluster API types of group cluster.x-k8s.io,
// version v1beta2: Cluster, Machine, MachineSet, MachineDeployment,
// MachineHealthCheck, MachinePool and ClusterClass (with Cluster.spec.topology), plus the labels, annotations, finalizers,
// condition types and reasons that controllers and providers share.
//
// Field names and JSON tags follow upstream Cluster API v1beta2 exactly, so
// manifests and tools written for upstream work unchanged; only the subset that
// Capstan implements is declared (no v1beta1
// deprecated status, no in-place taints).
//
// The package owns types only. It holds no controller logic: everything that
// must hold at admission is expressed as OpenAPI bounds and CEL rules in
// kubebuilder markers, so the apiserver enforces it without webhooks. The CRDs
// generated from these markers live in capstan.dev/contracts/config/crd.
//
// Cost note for CEL rules: every string, list and map a rule reads is bounded
// (maxLength, maxItems, maxProperties) so the apiserver's static cost estimate
// stays in budget; messages are built from bounded strings only.
//
// +kubebuilder:object:generate=true
// +groupName=cluster.x-k8s.io
package v1beta2
