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

// Package v1alpha1 serves ExtensionConfig of group runtime.cluster.x-k8s.io at version v1alpha1,
// field for field as upstream's (deprecated) v1alpha1, so that ExtensionConfigs written for it
// keep working. It is a spoke: v1beta2 (capstan.dev/contracts/api/runtime/v1beta2) is the hub and
// the only stored version, and the conversion functions here run in the core manager's
// conversion webhook. The admission rules of v1beta2 hold here too, as CEL, because a request is
// validated at the version it is sent at.
//
// v1alpha1 differs from v1beta2 in shape only: url, service and path are pointers, failurePolicy
// a pointer, status.conditions are old-style (with severity) and the metav1 conditions are under
// status.v1beta2.conditions.
//
// The CRD version is generated unserved: the core manager turns it on when its conversion
// webhook is ready to convert it (the deployed components serve it already).
//
// +kubebuilder:object:generate=true
// +groupName=runtime.cluster.x-k8s.io
package v1alpha1
