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

// Package etcdsnapshot implements `capstanctl etcd snapshot`: a consistent snapshot of a
// KubeadmControlPlane's stacked etcd, taken from the management cluster through the same path
// the KubeadmControlPlane controller reaches etcd by (capstan.dev/contracts/etcd): the workload
// API server's port-forward to Pod kube-system/etcd-<node>, with a one-hour client certificate
// signed by the etcd CA in Secret <cluster>-etcd. No SSH and no node access.
//
// It owns the checks that refuse a cluster it cannot snapshot (before anything is dialled or
// written): a control plane that is not a KubeadmControlPlane, an external etcd
// (spec.kubeadmConfigSpec.clusterConfiguration.etcd.external, which Capstan does not reach), a
// control plane not yet initialized, a destination that already exists. The core must not compile
// the kubeadm provider's types in, so the KubeadmControlPlane is read as unstructured.
//
// The member: a healthy follower (it answers Status with no errors, knows a leader, and has no
// alarm raised), trying the control plane Machines by name; the leader only when no follower is
// healthy. A snapshot reads the whole database and streams it out; on the leader that competes
// with the heartbeats and the log replication the cluster depends on, while a healthy follower
// holds the same committed data, at most a heartbeat behind. etcd's consistency is per member:
// the snapshot is one read transaction of that member's store.
//
// The file is written under a temporary name in the destination's directory and renamed only
// after etcd's appended sha256 and the bbolt database check (etcd.VerifySnapshot), so a file
// under the final name is always a whole, verified snapshot. The revision printed is read back
// from the file. Package etcdrestore restores such a file.
package etcdsnapshot
