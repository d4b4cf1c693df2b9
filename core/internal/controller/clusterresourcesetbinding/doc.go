// Package clusterresourcesetbinding deletes the ClusterResourceSetBinding of a Cluster that is
// gone or being deleted, as upstream's controller of the same name: a binding is owned by the
// ClusterResourceSets it records, not by its Cluster, so the garbage collector would keep it.
// It honours the paused annotation on the binding and a paused Cluster, and keeps the binding of a
// deleting topology Cluster until the Cluster is marked ok-to-delete (a BeforeClusterDelete hook
// may still hold its deletion), as upstream. It never touches the
// workload cluster (applied objects go with it) nor a binding of a live Cluster: the
// clusterresourceset controller writes those.
package clusterresourcesetbinding
