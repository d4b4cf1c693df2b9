// Package editplan is `capstanctl plan`: what an edit of MachineDeployments and MachineSets will
// do to their Machines before it is applied. Each edited object goes through a server-side dry
// run (an update with DryRun=All: admission defaulting and validation apply, nothing is stored),
// and the outcome is decided with the MachineDeployment controller's own rollout functions
// (core/internal/mdrollout: the template hash says whether Machines are replaced or changed in
// place, the planners give each step under maxSurge and maxUnavailable) and the MachineSet
// controller's deletion order (machineset.SortForDeletion). Clusters with spec.topology are
// planned by topologyplan, as `capstanctl topology plan` does.
//
// For each Machine the plan deletes that has a Node, it reads the workload cluster (through
// Secret <cluster>-kubeconfig, as the controllers do) and says what will hold the drain, decided
// by core/internal/drainrules exactly as the Machine controller decides it: Pods waited for
// (WaitCompleted by the cluster.x-k8s.io/drain label or a MachineDrainRule), Pods evicted in a
// later order group, Pods skipped, and evictions that the PodDisruptionBudgets selecting a Pod
// refuse right now. A workload cluster that cannot be read is a note, not a failed plan.
//
// KubeadmControlPlanes (read as unstructured: their Go types belong to the bootstrap-kubeadm
// module, which the core must not import) are simulated with the decisions their controller
// takes, which live in contracts/kcprollout for both: Decide, SelectForScaleDown,
// FailureDomainForScaleUp, MachineReason and ConfigDiff; the etcd members and quorum follow the
// Machines with stacked etcd.
//
// It never writes, neither to the management cluster nor to a workload cluster, and it prints
// nothing: package cmd does.
package editplan
