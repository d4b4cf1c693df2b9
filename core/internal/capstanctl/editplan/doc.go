// Package editplan is `capstanctl plan`: what an edit of MachineDeployments and MachineSets will
// do to their Machines before it is applied. Each edited object goes through a server-side dry
// run (an update with DryRun=All: admission defaulting and validation apply, nothing is stored),
// and the outcome is decided with the MachineDeployment controller's own rollout functions
// (core/internal/mdrollout: the template hash says whether Machines are replaced or changed in
// place, the planners give each step under maxSurge and maxUnavailable) and the MachineSet
// controller's deletion order (machineset.SortForDeletion). Clusters with spec.topology are
// planned by topologyplan, as `capstanctl topology plan` does.
//
// KubeadmControlPlanes are not planned: their controller lives in the bootstrap-kubeadm module,
// which the core must not import, so the plan says so rather than guess. Nor are
// PodDisruptionBudgets, drain rules or etcd quorum looked at yet.
//
// It never writes to the management cluster, and it prints nothing: package cmd does.
package editplan
