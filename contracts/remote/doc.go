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

// Package remote owns every provider's access to workload clusters: the ClusterCache keeps
// one connection per Cluster (REST config, clients, a per-cluster cache, a health probe),
// built from the Cluster's <cluster>-kubeconfig Secret, and hands controllers clients,
// watches and a source of connect/disconnect events.
//
// The ClusterCache is its own controller over Clusters, registered with SetupWithManager.
// For each Cluster it:
//
//   - connects once the Cluster exists, is not being deleted and its kubeconfig Secret
//     exists. It does not wait for the ControlPlaneInitialized condition (a test cluster may
//     have its kubeconfig at once); Options.ConnectOnlyWhenControlPlaneInitialized turns
//     that wait on. Connect builds, in order: REST config, HTTP client, lazy RESTMapper, a
//     probe of "/", an uncached client, then a cached client over a cache of its own;
//   - probes "/" every HealthProbe.Interval and disconnects after FailureThreshold
//     consecutive failures, or at once on Unauthorized (the kubeconfig was likely rotated);
//   - retries a failed or dropped connection every ConnectRetryInterval;
//   - reconnects when the kubeconfig in the Secret changes, and disconnects and forgets the
//     Cluster when the Secret or the Cluster is gone. A Cluster that is being deleted keeps
//     an existing connection until it is gone, so Machines can still drain and delete their
//     Nodes, but no new connection is opened for it.
//
// While there is no connection every getter returns an error wrapping
// ErrClusterNotConnected. Controllers must not requeue on it: they watch GetClusterSource,
// which enqueues their objects on connect and disconnect (and, with WatchForProbeFailure,
// when the probe has been failing for a while). Watches a controller added with Watch are
// re-established after a reconnect; they are forgotten with the Cluster or its Secret.
//
// Every connection owns two goroutines, its cache and its probe; both have returned when a
// disconnect returns, and when the manager stops every connection is dropped the same way.
// The kubeconfig Secret reads happen in the reconciler only; GetClient and the other getters
// never do I/O and never wait on a workload cluster.
//
// What it must not touch: it never caches Secrets, ConfigMaps or Pods of a workload cluster
// (the cached client reads them live and Watch refuses them), never writes to the management
// cluster, and never runs code or reads files a kubeconfig points at: kubeconfigs with exec
// or auth-provider plugins, or with credential or CA file paths, are rejected, because a
// kubeconfig Secret is user input and the manager's own files (its service-account token)
// must not be sent to an API server a user chose.
//
// The manager's role on the management cluster needs get/list/watch on Clusters and on
// Secrets: kubeconfigs are read live through Options.SecretReader, and a metadata-only
// informer (names and resource versions, nothing else) over the Secrets of the contract's
// type cluster.x-k8s.io/secret tells the ClusterCache when a kubeconfig Secret appears,
// changes or goes away; other Secrets never reach the manager. A kubeconfig Secret of
// another type is found by the retry every ConnectRetryInterval and read on every reconcile.
package remote
