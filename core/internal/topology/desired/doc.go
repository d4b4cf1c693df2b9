// Package desired computes, with pure functions, the objects a topology Cluster should have: the
// InfrastructureCluster and ControlPlane generated from its ClusterClass's templates, the
// control plane's InfraMachineTemplate copy, one MachineDeployment (with bootstrap and
// infrastructure template copies) per topology entry, the MachineHealthChecks the class or
// topology enables, and the Cluster's references to the generated objects. It follows upstream
// Cluster API's desired-state computation (names from naming templates, the topology's labels,
// topology values overriding class values).
//
// Provider objects are handled only as unstructured values through contract paths: the core
// imports no provider. The package owns no I/O: the topology controller reads the class, its
// templates and the current objects, calls Compute and applies the result.
package desired
