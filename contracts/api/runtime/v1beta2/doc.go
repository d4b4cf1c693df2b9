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

// Package v1beta2 holds ExtensionConfig of group runtime.cluster.x-k8s.io, version v1beta2 (the
// stored version): how Capstan reaches a Runtime Extension server (a URL or a Service, trusted
// through the caBundle its owner writes), which namespaces it serves, the settings sent with
// every call, and, in status, the handlers its discovery reported.
//
// Field names and JSON tags are upstream Cluster API's, so ExtensionConfigs written for upstream
// work unchanged. Upstream's admission webhook rules (exactly one of url and service, https only,
// no user info, query or fragment, DNS names for the Service and the object) are CRD schema and
// CEL rules here, so no webhook runs. Capstan does not gate the kind behind a feature flag, and
// it does not implement the inject-ca-from-secret annotation: whoever runs the extension writes
// its CA into spec.clientConfig.caBundle.
//
// The package owns types only; the controller lives in the core provider.
//
// +kubebuilder:object:generate=true
// +groupName=runtime.cluster.x-k8s.io
package v1beta2
