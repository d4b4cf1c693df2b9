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
// Creating the container, importing spec.preLoadImages into it, executing the bootstrap data in
// it (once, with a lock and the success sentinel, in the background), routing the cluster
// endpoint inside it, keeping its /etc/hosts and endpoint route in step with the cluster, and
// setting the Node's providerID are internal/node's, shared with the DockerMachinePool
// controller. This package decides when: the BootstrapExecSucceeded condition records success
// so that a bootstrapped node is not even asked again, and a failing command or
// spec.bootstrapTimeout (default 5m) ends it for good with BootstrapExecSucceeded False and the
// tail of the output. An image of spec.preLoadImages missing from the engine holds the
// bootstrap (BootstrapExecSucceeded False, PreLoadImageNotFound, retried every 30s); nothing is
// pulled.
//
// Every reconcile of a running container also syncs its view of the cluster's addresses
// (/etc/hosts lists the cluster's other containers; the endpoint route points at the load
// balancer's current address), comparing first and writing only what differs. Docker events of
// any container of the Cluster, and a DockerCluster whose load-balancer address changed,
// re-trigger the Cluster's DockerMachines, so older nodes learn of newer ones and forget removed
// ones.
//
// Events (events.go) record the node container's creation, the end of its bootstrap (succeeded,
// failed with the end of the output, timed out) and its removal when they happen; a failure the
// conditions already report is not recorded again, so a steady DockerMachine records none.
//
// The package owns node containers and the DockerMachine's status. It must not touch the load
// balancer (the DockerCluster controller reconfigures it on Docker events) nor import another
// provider.
package dockermachine
