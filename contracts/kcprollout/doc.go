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

// Package kcprollout is how a KubeadmControlPlane moves its Machines: whether the next step adds
// or removes one, which one it removes, where a new one goes, why a Machine is outdated, and the
// etcd quorum. The KubeadmControlPlane controller (bootstrap-kubeadm module) acts on these
// decisions and `capstanctl plan` (core module) simulates a whole rollout with them; the two
// modules share nothing but contracts, so the one copy of the logic lives here.
//
// Everything here is pure: no client, no clock. The KubeadmConfig and KubeadmControlPlane
// specs are taken as JSON trees (map[string]any), because their Go types belong to the
// bootstrap-kubeadm module; the controller marshals its typed objects, capstanctl reads
// unstructured ones.
package kcprollout
