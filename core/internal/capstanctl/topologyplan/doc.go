// Package topologyplan is `capstanctl topology plan`: an offline dry run of the topology
// controller for the topology Clusters of some files. It reads each Cluster's ClusterClass and
// templates (from the files first, else from the management cluster), computes the desired state
// with the controller's own code (core/internal/topology/clusterstate), compares it with what the
// management cluster holds (server-side dry-run applies, which store nothing) and returns the
// objects the controller would create, change (with a diff) and delete.
//
// It never writes to the management cluster, and it prints nothing: package cmd does.
package topologyplan
