// Package machinehealthcheck reconciles MachineHealthChecks: it finds the Machines of a
// Cluster that a MachineHealthCheck selects, judges each one against the checks (the Node
// never appeared within checks.nodeStartupTimeoutSeconds, the Node was deleted, a Node or
// Machine condition held an unhealthy status past its timeout, or the Machine carries the
// cluster.x-k8s.io/remediate-machine annotation), and marks them: HealthCheckSucceeded on
// every target, and OwnerRemediated=False on unhealthy ones when remediation.triggerIf
// allows it, so that the Machine's owner (a MachineSet or a control plane) replaces it.
//
// It never deletes a Machine and never writes any other part of a Machine. The Machine
// controller writes the same status.conditions list, so these conditions are written
// with server-side apply under field managers of their own (one per condition), which own
// only their list entries (the list is a listType=map keyed by type); removing
// OwnerRemediated from a healthy Machine is a JSON patch that tests the entry's type at
// its index before removing it. A merge patch of the whole list from here would either
// overwrite the Machine controller's conditions or, guarded by resourceVersion, conflict
// with its every write.
//
// Time-based checks are not polled: each reconcile requeues at the soonest moment a
// timeout of any target expires. Recomputing the same state produces the same status
// (sorted targets, condition transition times kept, no timestamps in messages), so a
// steady MachineHealthCheck and its Machines are never re-written.
//
// The node startup time counts from the latest of: the Machine's creation, the Machine's
// InfrastructureReady condition turning True, and the Cluster's InfrastructureReady and
// ControlPlaneInitialized conditions turning True (as the API documents and upstream
// does), so a slow cluster bring-up is not charged to its Machines.
//
// With external remediation (spec.remediation.templateRef) no owner is asked: for each
// unhealthy Machine (within remediation.triggerIf) the template's spec.template is cloned
// into a remediation request of the template's kind without "Template", named like the
// Machine, in its namespace and owned by it, and ExternallyRemediated=False says the
// Machine waits for it (a third field manager owns that condition); when the Machine is
// healthy again the request it owns is deleted and the condition removed, as upstream. The
// remediation kinds are read through the cached unstructured client: the infrastructure
// group is granted by the markers, other groups by a ClusterRole the remediation provider
// labels cluster.x-k8s.io/aggregate-to-manager: "true".
//
// The MachineHealthCheck has no finalizer: deleting it leaves the Machines' conditions as
// they are, as upstream does.
package machinehealthcheck
