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

// Package kubeadmconfig reconciles KubeadmConfigs: it turns a KubeadmConfig owned by a Machine,
// plus values from the Machine and its Cluster, into the Machine's bootstrap data, a Secret
// named after the KubeadmConfig holding a cloud-config document (keys "value" and "format"),
// and reports it through status.dataSecretName and status.initialization.dataSecretCreated as
// the bootstrap provider contract requires.
//
// The first control plane Machine of a Cluster that takes the init lock (package locking) gets
// "kubeadm init" data with the cluster certificates (package certs generates them if missing);
// every other control plane Machine waits until the Cluster reports its control plane
// initialized and then joins with the certificates embedded; workers wait likewise and join
// with a bootstrap token the controller creates in the workload cluster (through
// contracts/remote) and the CA's public-key pin.
//
// Once the data Secret exists the controller writes nothing more: a steady KubeadmConfig is read
// and left alone. Not in this package yet: refreshing the token of a Machine that has not joined
// within the token TTL, and token rotation for MachinePools.
//
// It must not touch Machines, Clusters or the workload cluster beyond creating bootstrap-token
// Secrets there, and never caches Secrets or ConfigMaps: they are read through the manager's
// uncached APIReader.
package kubeadmconfig
