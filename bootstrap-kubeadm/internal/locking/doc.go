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

// Package locking owns the control plane init lock: the ConfigMap <cluster>-lock in the Cluster's
// namespace whose key "lock-information" holds {"machineName": "<name>"}, the same shape as
// upstream's pkg/locking, so that exactly one control plane Machine of a Cluster renders
// "kubeadm init" data and every other waits to join.
//
// Acquire is idempotent for the holder. A lock whose holder Machine no longer exists is
// released (deleted with a UID and resourceVersion precondition, so a lock re-taken in the
// meantime is never removed) and taken anew. The caller releases the lock once the Cluster
// reports its control plane initialized. The ConfigMap has the Cluster as owner, so it goes with
// the Cluster.
//
// Reads go through an uncached reader (the manager's APIReader): a cache that has not yet seen
// the holder Machine or the lock would let a second Machine take the lock and init a second
// cluster. The package must not decide when to lock or unlock: the KubeadmConfig controller does.
package locking
