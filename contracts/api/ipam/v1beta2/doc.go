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

// Package v1beta2 holds the IPAM types of group ipam.cluster.x-k8s.io, version v1beta2 (the
// stored version): IPAddressClaim, which an infrastructure provider creates to ask an IPAM
// provider's pool for an address, and IPAddress, the address the IPAM provider allocated for a
// claim.
//
// Field names and JSON tags follow upstream Cluster API's ipam v1beta2 API, so IPAM providers
// written for upstream work unchanged. Upstream keeps the v1beta1 conditions under
// status.deprecated.v1beta1; Capstan keeps no v1beta1 conditions (as for every other kind), so
// that field is left out and v1beta1 readers see them derived from the v1beta2 ones. Upstream's
// validating webhook rules (immutable spec, a valid IP address, a prefix that fits its address
// family, a valid gateway) are CRD schema and CEL rules here, so no webhook runs. Upstream's
// webhook also compares an IPAddress's poolRef with its claim's: that needs a read of another
// object, which CEL cannot do, and is left to the IPAM provider that writes both.
//
// The package owns types only. The core serves the CRDs (and converts v1alpha1 and v1beta1);
// as upstream, no core controller reconciles these kinds: IPAM providers do.
//
// +kubebuilder:object:generate=true
// +groupName=ipam.cluster.x-k8s.io
package v1beta2
