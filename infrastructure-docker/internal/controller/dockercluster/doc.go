// Package dockercluster reconciles DockerClusters: for each one it runs the cluster's load
// balancer, a <cluster>-lb HAProxy container on the provider's Docker network, publishes its API
// port on 127.0.0.1, sets spec.controlPlaneEndpoint and status.initialization.provisioned (the
// infrastructure-cluster contract), and keeps the HAProxy configuration listing the cluster's
// control-plane node containers, reloading HAProxy with SIGHUP when that list changes. On
// deletion it waits for the cluster's DockerMachines to go, removes the load balancer and then
// its finalizer.
//
// Events (events.go) record the load balancer's creation, each reload for changed control-plane
// nodes and its removal when they happen; a failure the LoadBalancerAvailable condition already
// reports is not recorded again, so a steady DockerCluster records none.
//
// The load balancer is found by name and labels, never remembered: a restarted controller adopts
// the container it finds and never creates a second one. The package owns the load-balancer
// container and the DockerCluster's status; node containers belong to the DockerMachine
// controller, which it only lists.
package dockercluster
