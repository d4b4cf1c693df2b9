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

// Package v1alpha1 holds the wire messages of the Runtime SDK, group
// hooks.runtime.cluster.x-k8s.io, version v1alpha1: what Capstan POSTs to a Runtime Extension
// and what the extension answers, for discovery, the lifecycle hooks, the topology mutation
// hooks and GenerateUpgradePlan. They are Go types, not CRDs (nothing here is stored).
//
// JSON field names are upstream Cluster API's, so an extension written with upstream's SDK
// understands Capstan and the other way round (testdata/ holds golden documents written from
// upstream's field names). Requests embed the core v1beta2 Cluster, as upstream does since 1.13.
// The package owns types and the hook catalog (names, paths, which hooks block); calling an
// extension is the core provider's business.
package v1alpha1
