// Package node owns what the DockerMachine and DockerMachinePool controllers both do to a node
// container: create it with the proven node flags on the provider's network, execute the
// cloud-init bootstrap data in it once, route the cluster endpoint inside it to the load
// balancer, set the workload Node's providerID, and turn the engine's events about node
// containers into reconcile requests.
//
// It decides nothing about which containers should exist, how they are named or when they are
// removed: that is each controller's business, and so are the objects' status and conditions
// (this package reports phases and messages, the controllers turn them into conditions). It
// never touches the load balancer (the DockerCluster controller reconfigures it on Docker
// events) and reads only what it is given: the bootstrap data Secret (live, through APIReader:
// the manager caches no Secret) and the Cluster's DockerCluster (for the load balancer's address).
//
// Bootstrap: the document is parsed by internal/cloudinit; files are written through Engine
// exec (internal/docker), the kubeadm configuration files are amended first (kubelet flags and
// ignored preflight checks a node container needs here, as upstream CAPD does: see
// amendKubeadmConfig), and the runcmd commands run in the background from a script, so that no
// worker waits minutes on kubeadm. Nothing is written before systemd in the node finished
// booting (it mounts a tmpfs over /run). Creating /var/lib/capstan/bootstrap is the lock that
// makes the bootstrap happen at most once per container; the sentinel
// /run/cluster-api/bootstrap-success.complete, written by the bootstrap data, ends it. A failing
// command, or the timeout, ends it for good with the tail of the commands' output.
//
// Endpoint: the Cluster's endpoint is 127.0.0.1:<published port> (the management side's view).
// Inside a node, a DNAT in the node's own network namespace sends it to the load balancer (see
// endpointRoute); route_localnet is set on the container as a namespaced sysctl, so the host's
// sysctls are never touched. The same endpoint thus works on both sides and the API server's
// certificate (SAN 127.0.0.1) is valid on both.
package node
