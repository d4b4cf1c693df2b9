// Package machinedeployment reconciles MachineDeployments: it keeps one MachineSet per revision
// of the Machine template, named after a hash of the template's rollout fields, and moves
// Machines from the old revisions to the new one with the RollingUpdate strategy (within
// maxSurge and maxUnavailable, never letting availability drop below spec.replicas minus
// maxUnavailable) or the OnDelete strategy (a Machine is replaced only after a user deletes it).
// It rolls out again when spec.rollout.after passes, numbers revisions with the
// machinedeployment.clusters.x-k8s.io/revision annotation, deletes the old MachineSets once a
// rollout is complete, propagates in-place fields (labels, annotations, minReadySeconds,
// readinessGates, deletion settings) to the current MachineSet without a rollout, and reports
// replica counts and the Available, RollingOut, ScalingUp and ScalingDown conditions.
//
// It writes MachineSets only; Machines are the MachineSets' business (it reads them to know what
// is available). Changing only spec.replicas scales the current MachineSet and never creates a
// new one. There is no rollback: upstream removed it in v1beta2, and going back to an earlier
// template is simply a new rollout (which reuses the old MachineSet if it still exists).
//
// Its decisions that need no client (the template hash, which MachineSet is current, the rolling
// update limits and the planners of each step) live in core/internal/mdrollout, so that
// `capstanctl plan` decides with the same code.
package machinedeployment
