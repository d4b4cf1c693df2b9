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

// Package etcdrestore implements `capstanctl etcd restore`: a KubeadmControlPlane's stacked etcd
// put back to a snapshot of the same cluster, from the management cluster.
//
// etcd's procedure for a cluster of several members is followed: every member is restored in
// place from the one snapshot, under its own name and peer URLs, with one new cluster token, so
// the restored members form one new cluster (new member IDs) holding the snapshot's data. The
// data directories are written here with etcdutl's restore (compiled in, so the nodes need no
// etcdutl), the revision raised by revisionBump and older ones marked compacted. The nodes are
// reached through the workload API server only: a Pod per control plane node (hostPID, the
// static Pod manifests and etcd's data directory mounted) receives its member's data by exec,
// then every node switches at one moment armed ahead (once the first etcd stops the API server
// may be unreachable, so nothing after that moment may need it). The Cluster is paused
// meanwhile, so no controller acts on a control plane whose etcd is down.
//
// Why in place rather than scaling the control plane to one member and joining the others
// again: it keeps the Machines (no control plane node replaced, which on most infrastructures
// is the slow and costly part), the API is down once, for about a minute, and kubeadm's static
// Pod manifests stay as they are (a restored data directory makes etcd ignore its
// --initial-cluster flags; a re-joined member would need them rewritten).
//
// Prepare is the preflight and changes nothing; a failure before the nodes are armed deletes
// the Pods and resumes the Cluster. A snapshot is of this cluster when its Namespace kube-system
// has the live one's UID (it never changes in a cluster's life).
package etcdrestore
