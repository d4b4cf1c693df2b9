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

// Package v1beta1 serves the Docker provider's kinds of group infrastructure.cluster.x-k8s.io at
// version v1beta1, field for field as upstream's Docker provider (CAPD) v1beta1 of releases
// 1.11 to 1.14, so that manifests and clients written for it keep working: DockerCluster,
// DockerMachine, DockerMachinePool and their templates. It is a spoke: v1beta2
// (capstan.dev/infrastructure-docker/api/v1beta2) is the hub and the only stored version; the
// conversion functions here run in the provider manager's conversion webhook
// (capstan.dev/contracts/conversionwebhook), with the shared rules of capstan.dev/contracts/conversion.
//
// Conditions are as v1beta1 had them: status.conditions is the v1beta1 list (with severity) and
// the v1beta2 conditions appear under status.v1beta2.conditions (DockerMachinePool has no such
// slot: its v1beta2 conditions live only in the conversion data, as upstream). Capstan's v1beta2
// keeps no deprecated v1beta1 status: a v1beta1 read shows upstream's v1beta1 conditions (Ready,
// LoadBalancerAvailable; Ready, ContainerProvisioned, BootstrapExecSucceeded; Ready,
// ReplicasReady) derived from the v1beta2 ones, never stored (clusterv1beta1.DerivedConditions).
//
// The CRD versions are generated unserved: the manager turns v1beta1 on when its conversion
// webhook is ready to convert it, so that a v1beta1 object can never be stored unconverted.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.cluster.x-k8s.io
package v1beta1
