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

// Package v1alpha1 serves IPAddressClaim and IPAddress of group ipam.cluster.x-k8s.io at version
// v1alpha1, field for field as upstream's v1alpha1 (the version the first IPAM providers were
// written against; it has no spec.clusterName and no v1beta2 conditions). It is a spoke of the
// v1beta2 hub (capstan.dev/contracts/api/ipam/v1beta2), converted in the core manager's conversion
// webhook; what v1alpha1 cannot express (spec.clusterName, the v1beta2 conditions) is kept in the
// conversion-data annotation, so a v1alpha1 client that writes an object back loses nothing. The
// v1beta2 CEL rules apply to v1alpha1 writes through the generated ValidatingAdmissionPolicies, as
// for v1beta1. status.conditions shows Ready derived from the v1beta2 condition unless a v1alpha1
// client wrote conditions.
//
// The CRD versions are generated unserved: the core manager turns v1alpha1 on when its
// conversion webhook is ready to convert it (the deployed components serve it already).
//
// +kubebuilder:object:generate=true
// +groupName=ipam.cluster.x-k8s.io
package v1alpha1
