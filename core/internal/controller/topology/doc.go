// Package topology reconciles Clusters with spec.topology: it reads the Cluster's ClusterClass
// and the templates it references, checks the topology against the class (variables, worker
// classes), computes the desired objects (core/internal/topology/desired, with the class's
// inline patches from core/internal/topology/patches) and server-side applies them under one
// field manager, capstan-topology: the InfrastructureCluster, the ControlPlane and its
// InfraMachineTemplate copy, one MachineDeployment with template copies per topology entry, one
// MachinePool with its BootstrapConfig and InfraMachinePool per pool entry, and the
// MachineHealthChecks. It sets the Cluster's infrastructureRef and controlPlaneRef once and
// owns the Cluster's TopologyReconciled condition.
//
// A template copy whose spec must change is never edited: a new copy is created under a new
// name and its referrer pointed at it (template rotation); copies no longer referenced by the
// desired state or by a MachineSet are deleted (sweep.go), of every kind a copy may have, also
// kinds the class no longer uses. A MachinePool's BootstrapConfig and InfraMachinePool are
// objects, not templates: as upstream, they keep their names and are updated in place; those
// created for an entry before a stop short of its MachinePool are taken up by it, or deleted
// when the entry is gone. A class whose kinds differ from what the Cluster has (a rebase to an
// incompatible class) is refused before anything is applied. A MachineDeployment removed from the topology is deleted with its MachineHealthCheck;
// a removed MachinePool is deleted (the MachinePool controller deletes what it references). Nothing is written when nothing changed: each object is
// compared with a server-side dry-run of its intent first.
//
// It has no finalizer: generated objects carry an owner reference to the Cluster and go with it,
// and the Cluster controller tears the Cluster down. It never imports a provider: provider
// objects are unstructured, read and written through contract paths.
//
// A change of spec.topology.version is orchestrated (core/internal/topology/upgrade): the
// control plane first, then the MachineDeployments a few at a time, then the MachinePools; the
// controller reads the ControlPlane's status (watching its kind), the MachineDeployments' Machines
// and the MachinePools' Node counts, and reports what is pending in TopologyReconciled; a move of
// several minors runs step by step through the class's spec.kubernetesVersions.
//
// Runtime SDK lifecycle hooks, as upstream: BeforeClusterCreate holds the creation of the
// topology (hooks.go); AfterControlPlaneInitialized is owed from the topology's creation and paid
// once the control plane is initialized (hooks_initialized.go); the upgrade hooks hold each step
// of an upgrade (hooks_upgrade.go); BeforeClusterDelete holds a Cluster's whole deletion until it
// marks the Cluster ok-to-delete (hooks_delete.go), which the Cluster and
// ClusterResourceSetBinding controllers wait for. What a Cluster is owed is kept in its
// pending-hooks annotation (core/internal/runtime/tracking). Not done here (upstream does):
// external patches, upgrade plans from a Runtime Extension.
package topology
