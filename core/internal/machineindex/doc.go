// Package machineindex is the core manager's cache index of Machines by their controller: the
// MachineSet and MachineDeployment controllers read a MachineSet's Machines through it instead
// of walking every Machine of the Cluster in the cache on each reconcile, which made their cost
// grow with the Cluster's size (a rollout of 1,000 Machines spent a sixth of the core's CPU
// there, docs/benchmarks.md).
package machineindex
