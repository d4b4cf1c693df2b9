// Package e2e provisions real workload clusters — kubeadm in Docker containers — through the
// three provider managers running against a management cluster, and checks what a user sees.
//
// The specs are behind the `e2e` build tag so `make test` does not run them; `make e2e` starts
// the local management plane and the managers and runs them, and `.ci/run` runs that right
// after `make test`. On a 2-core machine one workload cluster is shared by the specs, which
// run in order (each with its own deadline): quickstart traffic, MachineDeployment scaling,
// a rolling upgrade, MachineHealthCheck remediation, a MachinePool scaled after its first join
// token expired (the bootstrap manager runs with --bootstrap-token-ttl=1m), control plane 1→3
// with one node stopped, and the deletion whose cleanup asserts nothing of the cluster is left.
package e2e
