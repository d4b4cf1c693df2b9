// Package clusterresourceset reconciles ClusterResourceSets: for every Cluster of its namespace
// that the selector matches and whose control plane is initialized, it puts the objects held in
// the named Secrets and ConfigMaps into the workload cluster (field manager
// clusterresourceset/<name>, through contracts/remote's ClusterCache), records what it applied
// in the Cluster's ClusterResourceSetBinding, and reports ResourcesApplied. ApplyOnce creates
// each object once per Cluster and counts one that already exists as applied (as upstream: it
// never overwrites what is in the workload cluster, not even after a partly failed attempt);
// Reconcile applies with server-side apply, again whenever the resource's hash changes. Objects
// with generateName get a name derived from their content (generatename.go), so a retry never
// makes a second copy.
//
// Secrets and ConfigMaps: the manager caches neither. A resource is read live, by name, only when
// a ClusterResourceSet names it (through the APIReader), so the controller reads no other
// Secret's data. To hear that a named resource appeared or changed it informs on metadata only,
// stripped to name, namespace, UID and resource version before it is stored (no labels,
// annotations or managed fields: a last-applied annotation may hold a Secret's data), and only
// on what it may apply: Secrets of type addons.cluster.x-k8s.io/resource-set (one informer,
// narrowed on the server by a field selector on the type), and each ConfigMap a
// ClusterResourceSet names (one watch per name, narrowed by metadata.name, started and stopped
// as the ClusterResourceSets change), so foreign Secrets and ConfigMaps cost the manager no
// memory. RBAC still needs list/watch on both kinds cluster-wide; Kubernetes RBAC cannot grant
// by a name only known at run time.
//
// As upstream, the ClusterResourceSet becomes an owner of its Secrets and ConfigMaps (so
// `capstanctl move` takes them along) and of the bindings. Unlike upstream, deleting it removes
// that owner reference again, so the garbage collector does not delete the user's Secrets and
// ConfigMaps with it (upstream issue 3399). Objects applied to workload clusters are never
// deleted. Paused Clusters (spec.paused or the paused annotation) are skipped, and a paused
// ClusterResourceSet does nothing but report Paused.
//
// It must not touch: workload objects other than those its resources hold, bindings of other
// namespaces, or Secrets and ConfigMaps it does not name. ClusterResourceSetBindings of deleted
// Clusters are the clusterresourcesetbinding controller's.
package clusterresourceset
