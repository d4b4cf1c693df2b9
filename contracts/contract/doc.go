// Package contract reads the Cluster API provider contract out of provider objects.
//
// The core never compiles provider types in: it sees an InfraCluster, InfraMachine,
// BootstrapConfig or ControlPlane as an *unstructured.Unstructured and reads the few
// fields the contract promises through the typed accessors here, e.g.
//
//	ok, err := contract.InfrastructureMachine().Provisioned(v.Contract).Get(u)
//
// Which path holds a value depends on the contract version the provider's CRD declares
// (status.initialization.provisioned under v1beta2, status.ready under v1beta1), so the
// package also owns contract-version discovery: GetContractVersion reads the
// cluster.x-k8s.io/<contract> label of the CRD named by CalculateCRDName.
//
// Every accessor reports a missing field as ErrFieldNotFound and a field of the wrong
// JSON type as ErrFieldMistyped, naming the path and the object, and never panics on
// malformed input: provider objects are written by other people's controllers.
//
// The package only reads. It must not write provider objects through a client, add
// owner references or labels, or import core or provider API packages; the Set methods
// exist so tests can flip fakes (e.g. mark a GenericInfrastructureMachine provisioned).
package contract
