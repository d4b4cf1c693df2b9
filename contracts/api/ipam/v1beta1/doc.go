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

// Package v1beta1 serves IPAddressClaim and IPAddress of group ipam.cluster.x-k8s.io at version
// v1beta1, field for field as upstream's v1beta1, so that IPAM and infrastructure providers
// written against it keep working. It is a spoke: v1beta2 (capstan.dev/contracts/api/ipam/v1beta2)
// is the hub and the only stored version, and the conversion functions here run in the core
// manager's conversion webhook. The v1beta2 CEL rules (immutable spec, valid addresses, a prefix
// that fits the family, a non-empty pool reference) apply to v1beta1 writes through the
// generated ValidatingAdmissionPolicies (contracts/config/admission/v1beta1-rules.yaml), which
// see the object converted to v1beta2.
//
// Conditions are as v1beta1 had them: status.conditions is the v1beta1 list (with severity) and
// the v1beta2 conditions appear under status.v1beta2.conditions; Capstan keeps no v1beta1
// conditions, so unless a v1beta1 client wrote them status.conditions shows Ready derived from
// the v1beta2 condition (never stored).
//
// The CRD versions are generated unserved: the core manager turns v1beta1 on when its
// conversion webhook is ready to convert it (the deployed components serve it already).
//
// +kubebuilder:object:generate=true
// +groupName=ipam.cluster.x-k8s.io
package v1beta1
