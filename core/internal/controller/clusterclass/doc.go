// Package clusterclass reconciles ClusterClasses as upstream Cluster API's controller of the same
// name does: it reads every template the class references (as unstructured objects, at the
// referenced apiVersion), watches their kinds so a template created later is picked up, adds the
// class as an owner of each template (so deleting the class garbage-collects them), reports in
// RefVersionsUpToDate whether each reference exists and names the newest API version its CRD's
// contract label declares, and compiles the variable schemas (topology/variables), publishing
// status.variables and VariablesReady. It also checks the rules of inline patches that admission
// cannot check (they depend on op), reporting them in VariablesReady.
//
// A ClusterClass carries no finalizer, so there is no delete path (no delete.go): its templates go
// through their owner references. It never rewrites the class's spec (upstream only reports
// outdated references too) and never touches Clusters: the topology controller reads the class's
// status.
package clusterclass
