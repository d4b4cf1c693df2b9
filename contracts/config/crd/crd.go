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

// Package crd embeds the CustomResourceDefinitions of the core Cluster API group
// (cluster.x-k8s.io) and of the addons group (addons.cluster.x-k8s.io: ClusterResourceSet and
// its binding, served by the core provider too) and ExtensionConfig (runtime.cluster.x-k8s.io,
// the Runtime SDK's, also served by the core provider), generated from capstan.dev/contracts/api, so that
// test environments and third parties can install them straight from the module
// instead of locating YAML files on disk. It owns no logic: bases/ is regenerated
// by controller-gen and must never be edited by hand.
package crd

import "embed"

// Bases holds the generated CRDs as bases/<group>_<plural>.yaml, one file per kind.
//
//go:embed bases/*.yaml
var Bases embed.FS
