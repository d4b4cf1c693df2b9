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

// Package v1beta2 holds the Docker infrastructure provider's API, group
// infrastructure.cluster.x-k8s.io, version v1beta2: DockerCluster (the load balancer in front of a
// cluster's control plane), DockerMachine (one node container), DockerMachinePool (the node
// containers of a MachinePool) and their templates.
//
// Field names and JSON follow upstream Cluster API's Docker provider (CAPD) v1beta2 of release
// 1.11 for every field declared here, so manifests written for upstream work unchanged. Only a
// subset is declared: no customHAProxyConfigTemplateRef (the load-balancer configuration is always
// generated), no deprecated v1beta1 status. DockerMachinePool follows upstream's experimental
// v1beta2 type with the v1beta2 contract's status (conditions as metav1.Condition,
// initialization.provisioned instead of ready, as upstream's DevMachinePool) and without
// infrastructureMachineKind or instances[].version (no per-instance Machines).
//
// The package owns types, their markers and the constants controllers share (finalizers,
// conditions, reasons, annotations). It holds no controller logic and must not import anything
// from other providers: admission rules are OpenAPI bounds and CEL rules, so the apiserver
// enforces them without webhooks. Every string and list a CEL rule reads is bounded so that the
// apiserver's static cost estimate stays within budget; messageExpressions concatenate bounded
// strings only (the apiserver refuses string(<int>) there for cost).
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.cluster.x-k8s.io
package v1beta2
