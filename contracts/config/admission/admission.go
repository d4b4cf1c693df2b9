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

// Package admission embeds the MutatingAdmissionPolicies and bindings that default the core
// Cluster API kinds (cluster.x-k8s.io) at admission, the work upstream does in defaulting
// webhooks, so that test environments and the local management plane install exactly what
// the core provider deploys (core/config/admission refers to this directory). It owns no
// logic; package admissionpolicy installs the files.
package admission

import "embed"

// Files holds one <kind>.yaml per kind, each a MutatingAdmissionPolicy and its binding, and the
// kustomization.yaml listing them.
//
//go:embed *.yaml
var Files embed.FS
