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

// Package etcd reaches the stacked etcd of a workload cluster: a small Client interface (list
// members, a member's own status, alarms, remove a member) that the KubeadmControlPlane controller
// decides with and capstanctl uses too (hence it lives in contracts, the one module both may
// import: the controller and the CLI reach etcd the same authenticated way), a real implementation over go.etcd.io/etcd/client/v3, a dialer that tunnels each
// connection through the workload API server's port-forward to the static Pod
// kube-system/etcd-<node>, and the short-lived client certificate signed by the cluster's etcd CA
// (<cluster>-etcd) that etcd's client-cert-auth wants.
//
// Snapshot streams one member's database as etcd sends it, its sha256 appended (the file
// etcdctl snapshot save writes); VerifySnapshot checks that hash as etcdutl snapshot restore does
// and opens the database read-only (bbolt) to read the revision and the live keys back. The
// revision comes from the file, not from a Status header: etcd sends no header with the stream,
// and a Status taken before or after it may count writes the snapshot does not hold.
//
// It owns nothing in any cluster: it never reads Secrets itself (the caller hands it the CA) and
// makes no decision about which member to remove.
package etcd
