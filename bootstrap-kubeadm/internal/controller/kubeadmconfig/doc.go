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

// Package kubeadmconfig reconciles KubeadmConfigs: it turns a KubeadmConfig owned by a Machine or
// a MachinePool (controller owner reference), plus values from the owner and its Cluster, into
// the owner's bootstrap data, a Secret named after the KubeadmConfig holding a cloud-config
// document or, with spec.format ignition, an Ignition config (package ignition; keys "value" and
// "format", the format being "cloud-config" or "ignition"), and reports it through status.dataSecretName and
// status.initialization.dataSecretCreated as the bootstrap provider contract requires.
//
// The first control plane Machine of a Cluster that takes the init lock (package locking) gets
// "kubeadm init" data with the cluster certificates (package certs generates them if missing);
// every other control plane Machine waits until the Cluster reports its control plane
// initialized and then joins with the certificates embedded; workers wait likewise and join
// with a bootstrap token the controller creates in the workload cluster (through
// contracts/remote) and the CA's public-key pin. A MachinePool is always a pool of workers: its
// instances all boot from the one data Secret, and it never initializes the control plane.
//
// Bootstrap tokens (token.go). A token the controller created is recorded in the annotation
// bootstrap.cluster.x-k8s.io/managed-bootstrap-token (its ID) next to the token in
// spec.joinConfiguration.discovery.bootstrapToken.token; a token the user wrote there is never
// refreshed or replaced. Once the data Secret exists, a managed token is checked in the
// workload cluster every TTL/3 (--bootstrap-token-ttl, 15m by default) while its owner may still
// boot from the data, and acted on when less than TTL/2 is left:
//   - a Machine without status.nodeRef, or a MachinePool whose infrastructure is not provisioned
//     yet: the token Secret's expiration is pushed out to now+TTL;
//   - a MachinePool whose infrastructure is provisioned (status.initialization.
//     infrastructureProvisioned): a new token replaces it in the spec and the data Secret is
//     rendered again in place (same name, new content), so a pool scaled up long after its
//     creation still joins (upstream #3965);
//   - a token whose Secret is gone is replaced the same way, for either owner.
//
// A Machine with a nodeRef has used its token: it is left to expire. Replaced tokens are left to
// expire too, never deleted, since an instance may be booting with one. Upstream keeps no record
// of which tokens it created and refreshes any token in the spec; the annotation is Capstan's
// addition. Token maintenance does not touch the conditions while the data Secret exists: its
// failures are returned as errors (logged, retried with backoff); only data that must be
// rendered again and cannot be makes DataSecretAvailable False, saying why.
//
// A steady KubeadmConfig writes nothing: a joined Machine's is read and left alone, and an
// unjoined owner's token is only read until it needs a refresh or a replacement.
//
// It must not touch Machines, MachinePools, Clusters or the workload cluster beyond creating and
// extending bootstrap-token Secrets there, and never caches Secrets or ConfigMaps: they are read
// through the manager's uncached APIReader.
package kubeadmconfig
