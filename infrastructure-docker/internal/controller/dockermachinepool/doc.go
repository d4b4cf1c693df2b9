// Package dockermachinepool reconciles DockerMachinePools: for the MachinePool that owns one it
// keeps as many node containers as the MachinePool's spec.replicas (default 1), bootstraps each
// new one with the MachinePool's bootstrap data of that moment, sets each workload Node's
// providerID, and fills the infrastructure-machine-pool contract (spec.providerIDList, sorted;
// status.replicas; status.initialization.provisioned). On deletion it removes every node
// container of the pool and its volumes, then its finalizer.
//
// Waits, each reported in the ReplicasReady condition (and so in Ready): the owner MachinePool
// (the core's MachinePool controller sets a controller owner reference; its
// spec.template.spec.infrastructureRef must name this object), the Cluster (cluster-name label,
// else the MachinePool's spec.clusterName), the Cluster's infrastructure (its load balancer), and
// the MachinePool's spec.template.spec.bootstrap.dataSecretName.
//
// Instances are containers named <MachinePool name>-<5 random characters> (the name is also the
// hostname and the Node name; a MachinePool name is cut to 57 characters so that the name stays
// a valid hostname), labelled with the provider's labels (plane, cluster, role worker) and
// io.capstan.docker-machine-pool=<DockerMachinePool name>. The engine is the record: every
// reconcile lists the pool's containers by those labels before it creates or removes anything,
// so a controller killed at any instant, or restarted, finds what exists and never creates a
// duplicate. Scale up creates the missing instances; scale down removes the instances that are
// not bootstrapped first, then those whose Node lacks the providerID, newest first within each.
// An instance removed by hand is replaced; one whose bootstrap failed is reported, not replaced
// (the bootstrap data would most likely fail again): removing its container or scaling down
// replaces it.
//
// Creating, bootstrapping (once, in the background, with a lock and the success sentinel, see
// internal/node) and the Node's providerID are shared with the DockerMachine controller. The
// bootstrap data Secret is read live when an instance's bootstrap starts, so an instance created
// after the bootstrap provider rotated its token gets the new data; instances already
// bootstrapped are not touched. Success is remembered in status.instances[].bootstrapped (the
// sentinel is in /run, which a container restart empties), readiness in
// status.instances[].ready, so neither is asked again.
//
// Every reconcile also keeps each instance's view of its cluster (internal/node's
// SyncClusterAddresses): /etc/hosts lists the cluster's other containers, those of
// DockerMachines included, and the endpoint route follows the load balancer when it is
// re-created. Docker events of any container of the Cluster, and a DockerCluster whose load
// balancer address changed, re-trigger the pool. spec.template.preLoadImages are imported into
// each new instance's containerd before its bootstrap starts, once (see internal/node); an
// image missing from the engine holds the bootstrap and ReplicasReady names it.
//
// Rollouts (rollout.go): each container records, in a label, a hash of what it was made from
// (image, extraMounts, preLoadImages); an instance whose hash differs from the pool's current
// one (a new MachinePool version, customImage or template) is replaced one at a time: a new
// instance first (one beyond spec.replicas at most), and an old one goes only while as many Nodes
// as spec.replicas stay Ready without it (a MachineDeployment's default maxSurge 1,
// maxUnavailable 0). A container made before the label existed is judged by its image, as
// upstream's Docker provider judges every instance.
//
// Not done: a bootstrap timeout other than the default 5m, MachinePool failure domains.
//
// Events (events.go) record the instances each reconcile creates or removes, one Event per cause
// (scale up or down, rollout, deletion); a steady pool records none.
//
// The package owns the pool's node containers and the DockerMachinePool's status. It must not
// touch the load balancer nor the DockerMachines' containers (it only lists them), nor import
// another provider.
package dockermachinepool
