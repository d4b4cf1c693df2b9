// Package clusterclass reconciles ClusterClasses as upstream Cluster API's controller of the same
// name does: it reads every template the class references (as unstructured objects, at the
// referenced apiVersion), watches their kinds so a template created later is picked up, adds the
// class as an owner of each template (so deleting the class garbage-collects them), reports in
// RefVersionsUpToDate whether each reference exists and names the newest API version its CRD's
// contract label declares, and compiles the variable schemas (topology/variables), publishing
// status.variables and VariablesReady. It also checks the rules of inline patches that admission
// cannot check (they depend on op), reporting them in VariablesReady.
//
// A ClusterClass carries a finalizer that holds its deletion while any Cluster's
// spec.topology.classRef names it (upstream refuses that deletion in its webhook; Capstan has no
// webhooks): the Deleting condition names those Clusters, and the class keeps being reconciled so
// they keep working. Once none uses it the finalizer goes and its templates follow through their
// owner references. It never rewrites the class's spec (upstream only reports outdated
// references too) and never touches Clusters: the topology controller reads the class's status.
package clusterclass
