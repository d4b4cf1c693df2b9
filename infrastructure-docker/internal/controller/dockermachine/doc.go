// Package dockermachine reconciles DockerMachines: for each one it runs the Machine's node
// container on the provider's Docker network, executes the Machine's cloud-init bootstrap data
// in it once, sets the workload Node's providerID, and fills the infrastructure-machine contract
// (spec.providerID docker:////<container>, status.addresses, status.failureDomain,
// status.initialization.provisioned). On deletion it removes the container and its volumes,
// then its finalizer.
//
// Waits, each reported in the ContainerProvisioned condition: the owner Machine (the core's
// Machine controller sets a controller owner reference), the Cluster (cluster-name label), the
// Cluster's infrastructure (its load balancer), and the Machine's
// spec.bootstrap.dataSecretName. The bootstrap Secret is read live through the APIReader: the
// manager caches no Secret.
//
// The container is named after the Machine (upstream CAPD's choice): the name is also its
// hostname and the kubeadm node name, so Node, container and Machine share the name users see.
// Machine names are unique per namespace, container names per engine: a container of that name
// that is not this DockerMachine's (labels io.capstan.* and io.capstan.docker-machine) is
// reported as NameTaken and never touched. Containers are found by name and labels, never
// remembered, so a restarted controller adopts what it finds. Once spec.providerID is set, a
// missing container is reported (ContainerDeleted) and not re-created: the node and its state
// are lost, and a MachineHealthCheck remediates the Machine.
//
// Bootstrap: the document is parsed by internal/cloudinit; files are written through Engine
// exec (internal/docker), the kubeadm configuration files are amended first (kubelet flags and
// ignored preflight checks a node container needs here, as upstream CAPD does: see
// amendKubeadmConfig), and the runcmd commands run in the background from a script, so that no
// worker waits minutes on kubeadm. Nothing is written before systemd in the node finished
// booting (it mounts a tmpfs over /run). Creating /var/lib/capstan/bootstrap is the lock that
// makes the bootstrap happen at most once per container; the sentinel
// /run/cluster-api/bootstrap-success.complete, written by the bootstrap data, ends it, and the
// BootstrapExecSucceeded condition records it so that a bootstrapped node is not even asked
// again. A failing command, or spec.bootstrapTimeout (default 5m), ends it for good with
// BootstrapExecSucceeded False and the tail of the commands' output.
//
// Endpoint: the Cluster's endpoint is 127.0.0.1:<published port> (the management side's view).
// Inside a node, a DNAT in the node's own network namespace sends it to the load balancer (see
// endpointRoute); route_localnet is set on the container as a namespaced sysctl, so the host's
// sysctls are never touched. The same endpoint thus works on both sides and the API server's
// certificate (SAN 127.0.0.1) is valid on both.
//
// The package owns node containers and the DockerMachine's status. It must not touch the load
// balancer (the DockerCluster controller reconfigures it on Docker events) nor import another
// provider.
package dockermachine
