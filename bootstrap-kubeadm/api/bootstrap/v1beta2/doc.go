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

// Package v1beta2 holds the kubeadm bootstrap provider's API, group bootstrap.cluster.x-k8s.io,
// version v1beta2: KubeadmConfig (the bootstrap configuration of one Machine) and
// KubeadmConfigTemplate (what MachineDeployments and MachineSets clone from), plus
// KubeadmConfigSpec, which the control plane group embeds in KubeadmControlPlane.
//
// Field names and JSON follow upstream Cluster API v1beta2 exactly for every field declared
// here, so manifests written for upstream work unchanged. The upstream fields kubeadm v1beta4 or
// cloud-init can express are declared, including the newest upstream's files[].contentFormat and
// diskSetup.partitions[].diskLayout, and upstream's format ignition with spec.ignition, always
// accepted (upstream's KubeadmBootstrapFormatIgnition feature gate has no Capstan counterpart)
// under upstream's rules for it. bootstrapTokens[].expires is refused at admission, since kubeadm
// v1.37 rejects it in a configuration file.
//
// The package owns types, their markers and the constants controllers share (conditions,
// reasons). It holds no controller logic and must not import anything from other providers:
// admission rules are OpenAPI bounds and CEL rules, so the apiserver enforces them without
// webhooks. Every string, list and map a CEL rule reads is bounded so that the apiserver's
// static cost estimate stays within budget; messageExpressions concatenate bounded strings only
// (the apiserver refuses string(<int>) there for cost).
//
// +kubebuilder:object:generate=true
// +groupName=bootstrap.cluster.x-k8s.io
package v1beta2
