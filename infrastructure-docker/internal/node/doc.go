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
// Bootstrap: the document is parsed by internal/cloudinit (or internal/ignition when the Secret's
// "format" is ignition: its actions are the same kinds) and the kubeadm configuration files
// are amended (kubelet flags and ignored preflight checks a node container needs here, as
// upstream CAPD does: see amendKubeadmConfig) before anything is written, so data that cannot be
// executed is refused with nothing done. The bootcmd commands, the files, then the users' and
// runcmd commands are then executed in
// the background by a runner script, so that no worker waits minutes on kubeadm. Nothing is
// written before systemd in the node finished booting (its units set up /run and the runtime the
// commands use). The sentinel /run/cluster-api/bootstrap-success.complete, written by the
// bootstrap data, ends it; a failing command, or the timeout, ends it for good with the tail of
// the commands' output.
//
// Bootstrap protocol. kubeadm init must never run twice in a node, and the provider may be
// killed (kill -9) at any instant, or two reconciles may race (an old manager's exec still
// running). Everything lives in /var/lib/capstan/bootstrap (D) on the node's /var volume, and
// each step is one exec that either happened whole or not at all:
//  1. Lock: D is created by renaming a temporary directory holding D/started (the start time),
//     so a lock never lacks its time. The bootstrap timeout counts from it.
//  2. Stage: D/attempts/<random>/ receives the files to write and run.sh; staging writes
//     nothing else, so an attempt that never starts changes nothing, and racing reconciles
//     stage attempts of their own. The endpoint route (which converges) is installed here too.
//  3. Claim and start: `mkdir D/run` (atomic: one winner), then setsid starts that attempt's
//     run.sh with its output in D/log and its process ID in D/pid. A loser does nothing.
//  4. Run: run.sh writes the files, runs the commands, and writes the exit record D/exit, and
//     D/succeeded when the sentinel exists (/run is emptied by a container restart; /var is not).
//
// Each record (D/exit) is written with noclobber: the first writer wins, so a runner that ends
// as the timeout stops it cannot overwrite the timeout, nor the timeout the runner's end.
// Recovery after a kill at each point: before the lock, the next reconcile starts from the
// beginning; after the lock and before the claim (D without D/run), it stages a new attempt and
// claims the run, so the run starts once; during the run, the runner goes on (it is detached
// from the exec) and is polled; after the run and before the status write, the records say how
// it ended. A lock whose run never starts within the timeout (the provider cannot prepare the
// node, e.g. its exec keeps failing: the last error is kept in D/prepare-error) is ended by
// the timeout, which claims the run itself so that none starts later, with a message saying
// that nothing ran. A container restart kills a runner: with no exit record, the timeout ends it.
// Reading the state tolerates every missing file (any kill point leaves some missing).
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
