// Package machineset reconciles MachineSets: it keeps spec.replicas Machines that match the
// MachineSet's template, creating each one from clones of the template's bootstrap and
// infrastructure <Kind>Templates and deleting the surplus in spec.deletion.order; it adopts
// orphan Machines its selector matches and releases the ones it no longer matches; it deletes
// the Machines a MachineHealthCheck marked for remediation (HealthCheckSucceeded=False,
// OwnerRemediated=False), within the owning MachineDeployment's spec.remediation.maxInFlight;
// it keeps in-place fields (labels, annotations, minReadySeconds, readinessGates, deletion
// timeouts) and the UpToDate condition of its Machines current; and it reports replica counts
// and conditions in status.
//
// It owns Machines only as their creator and owner: it never writes a Machine's status except
// the UpToDate and OwnerRemediated conditions, which the Machine API assigns to the owner. It
// reads provider objects only as unstructured through capstan.dev/contracts/external and knows
// no provider type. Rolling out a new template is the MachineDeployment controller's job: a
// MachineSet never replaces Machines because its template changed.
//
// Decisions to create or delete Machines are taken on a live list of Machines (the APIReader),
// never on the cache alone, so a restart or a cache that has not yet observed the previous
// reconcile's writes can never produce duplicate Machines or delete too many.
//
// Before it creates or remediates Machines it runs upstream's preflight checks against the
// Cluster's control plane, read through the contract (spec.version, status.version):
// ControlPlaneIsStable, KubernetesVersionSkew and KubeadmVersionSkew (ControlPlaneVersionSkew
// is accepted but has nothing to compare until Clusters have a topology). The core flag
// --machineset-preflight-checks chooses them (upstream's flag; it replaces upstream's feature
// gate), and the machineset.cluster.x-k8s.io/skip-preflight-checks annotation on the
// MachineSet or its MachineDeployment skips them. Failed checks are re-run every 15 s: the
// control plane is not watched, as upstream.
package machineset
