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

// Package v1beta1 serves ClusterResourceSet and ClusterResourceSetBinding of group
// addons.cluster.x-k8s.io at version v1beta1, field for field as upstream's v1beta1, so that
// manifests written for it (upstream's cluster templates deliver their CNI this way) keep
// working. It is a spoke: v1beta2 (capstan.dev/contracts/api/addons/v1beta2) is the hub and the
// only stored version, and the conversion functions here run in the core manager's conversion
// webhook. The admission rules of v1beta2 that upstream's v1beta1 webhook also enforced
// (non-empty, immutable selector; immutable strategy; the ApplyOnce default) are CEL and schema
// rules here as well, because a request is validated at the version it is sent at.
//
// Conditions are as v1beta1 had them: status.conditions is the v1beta1 list (with severity) and
// the v1beta2 conditions appear under status.v1beta2.conditions; Capstan keeps no v1beta1
// conditions, so unless a v1beta1 client wrote them status.conditions shows ResourcesApplied
// derived from the v1beta2 condition (never stored).
//
// The CRD versions are generated unserved: the core manager turns v1beta1 on when its
// conversion webhook is ready to convert it (the deployed components serve it already, with the
// webhook configured; see capstan.dev/contracts/api/core/v1beta1).
//
// +kubebuilder:object:generate=true
// +groupName=addons.cluster.x-k8s.io
package v1beta1
