// Package clusterstate reads what a topology Cluster's desired state is computed from (its
// ClusterClass's templates and the objects the topology generated so far), computes that state
// with the class's variables and patches, and compares a desired object with what exists. It is
// shared by the topology controller, which applies the result, and `capstanctl topology plan`,
// which only prints it, so that the plan shows exactly what the controller would do.
//
// It reads through a client.Reader and never writes, except for server-side dry runs that store
// nothing; it owns no conditions (the controller does) and no printing (capstanctl does).
package clusterstate
