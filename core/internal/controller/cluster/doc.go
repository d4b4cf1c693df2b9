// Package cluster reconciles Clusters: it adopts the referenced infrastructure
// cluster and control plane (read as unstructured through the contract), copies
// their endpoint, failure domains and readiness into the Cluster, writes the
// admin kubeconfig when there is no control-plane provider, summarises workers and
// the workload-cluster connection in conditions, and on deletion takes the cluster
// apart top-down: workers, then the control plane, then the infrastructure — a
// topology Cluster only once the topology controller marked it ok-to-delete (its
// BeforeClusterDelete hook allowed it).
package cluster
