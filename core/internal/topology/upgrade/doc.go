// Package upgrade decides, with pure functions, which Kubernetes version each object of a
// topology Cluster gets while spec.topology.version changes, as upstream Cluster API's topology
// controller orchestrates upgrades: the control plane first, once it is neither provisioning,
// upgrading nor scaling and no MachineDeployment or MachinePool is still rolling out a version;
// then the MachineDeployments, in topology order, at most the upgrade-concurrency annotation's
// number at a time, only once the control plane is upgraded and stable, and only ever to the
// control plane's current version (so workers never run more than the control plane's minor);
// then the MachinePools in the same way (their own concurrency count), once no MachineDeployment
// is upgrading or waiting for anything but its annotations. Upstream moves MachineDeployments and
// MachinePools independently; Capstan sequences pools after deployments so that a version
// reaches the pools only once it has run on the deployments' Machines. Upstream's defer-upgrade
// and hold-upgrade-sequence annotations on MachineDeployment and MachinePool topologies hold
// single entries or the rest of their kind's sequence.
//
// With the ClusterClass's kubernetesVersions, the control plane moves several minor versions
// through the newest listed patch of each (steps.go), and the workers follow it minor by minor.
// Lifecycle hooks are asked by the topology controller, which hands over what they hold
// (Input.Hooks); upgrade-plan extensions are not implemented: without the list, a move of
// more than one minor version, or a downgrade, is refused (held, with a message), as upstream's
// Cluster webhook refuses it. The package owns no I/O: the topology
// controller reads the control plane, the MachineDeployments and their Machines, and the
// MachinePools' Node counts, and hands over what it found.
package upgrade
