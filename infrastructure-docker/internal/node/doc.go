// Package node owns what the DockerMachine and DockerMachinePool controllers both do to a node
// container: create it with the proven node flags on the provider's network, import the images
// to pre-load into its containerd, execute the cloud-init bootstrap data in it once, route the
// cluster endpoint inside it to the load balancer, keep its /etc/hosts and that route in step
// with the cluster's containers, set the workload Node's providerID, and turn the engine's events
// about a cluster's containers into reconcile requests.
//
// It decides nothing about which containers should exist, how they are named or when they are
// removed: that is each controller's business, and so are the objects' status and conditions
// (this package reports phases and messages, the controllers turn them into conditions). It
// never touches the load balancer (the DockerCluster controller reconfigures it on Docker
// events) and reads only what it is given: the bootstrap data Secret (live, through APIReader:
// the manager caches no Secret), the Cluster's DockerCluster (for the load balancer's address),
// the Clusters of a namespace (to map a DockerCluster to its Cluster's objects), and the images
// it is asked to pre-load.
//
// Bootstrap: the document is parsed by internal/cloudinit; files are written through Engine
// exec (internal/docker), the kubeadm configuration files are amended first (kubelet flags and
// ignored preflight checks a node container needs here, as upstream CAPD does: see
// amendKubeadmConfig), and the runcmd commands run in the background from a script, so that no
// worker waits minutes on kubeadm. Nothing is written before systemd in the node finished
// booting (its units set up /run and the runtime the commands use). Creating /var/lib/capstan/bootstrap is the lock that
// makes the bootstrap happen at most once per container; the sentinel
// /run/cluster-api/bootstrap-success.complete, written by the bootstrap data, ends it. A failing
// command, or the timeout, ends it for good with the tail of the commands' output.
//
// Endpoint: the Cluster's endpoint is 127.0.0.1:<published port> (the management side's view).
// Inside a node, a DNAT in the node's own network namespace sends it to the load balancer (see
// endpointRoute); route_localnet is set on the container as a namespaced sysctl, so the host's
// sysctls are never touched. The same endpoint thus works on both sides and the API server's
// certificate (SAN 127.0.0.1) is valid on both. The route's script deletes rules pointing at an
// earlier load-balancer address before adding its own, so SyncClusterAddresses re-points a node
// by rewriting and re-running it when the DockerCluster publishes a new address.
//
// Names: nodes run with --dns 127.0.0.1 and their hostname as the Node name, so every name a
// node looks up must be in its /etc/hosts. SyncClusterAddresses keeps a block delimited by
// "# capstan nodes begin" and "# capstan nodes end" there listing the cluster's other running
// containers (nodes and load balancer), rewritten in place (Docker bind-mounts the file) only
// when it differs. Docker rewrites /etc/hosts when a container restarts, so nothing is written
// at creation and everything comes from the block.
//
// Pre-loading (upstream CAPD's preLoadImages): before the bootstrap takes its lock, each image is
// streamed from the engine (`docker save`) into `ctr -n k8s.io images import -` in the node and
// recorded in /var/lib/capstan/preloaded-images, so it is imported once per node. Nothing is
// pulled: an image missing from the engine holds the bootstrap in a phase the controllers
// report.
package node
