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

// Package v1beta2 holds the addons types of group addons.cluster.x-k8s.io, version v1beta2:
// ClusterResourceSet, which names Secrets and ConfigMaps whose manifests are applied to every
// workload cluster its selector matches, and ClusterResourceSetBinding, the per-Cluster record of
// what each ClusterResourceSet applied there.
//
// Field names and JSON tags follow upstream Cluster API's addons v1beta2 API exactly, so
// ClusterResourceSets written for upstream (a CNI delivered to every new cluster) work unchanged.
// Upstream's admission webhook rules (non-empty selector, immutable selector and strategy, the
// ApplyOnce default) are CRD schema and CEL rules here, so no webhook runs.
//
// The package owns types only; the controllers live in the core provider.
//
// +kubebuilder:object:generate=true
// +groupName=addons.cluster.x-k8s.io
package v1beta2
