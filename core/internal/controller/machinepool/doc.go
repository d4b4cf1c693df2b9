// Package machinepool reconciles MachinePools: groups of instances that an
// infrastructure provider manages as one unit (an InfraMachinePool, e.g. a cloud
// autoscaling group). It adopts the pool's bootstrap config and InfraMachinePool (read
// as unstructured through the contract: spec.providerIDList, status.replicas and
// status.initialization.provisioned, or status.ready under contract v1beta1), copies
// the bootstrap data Secret's name into the template and the provider IDs into
// spec.providerIDList, matches them to workload-cluster Nodes by providerID into
// status.nodeRefs and the replica counts, deletes the Nodes whose providerID left the
// list, and on deletion removes the InfraMachinePool, then the bootstrap config, then
// the pool's Nodes. On the matched Nodes it removes the node.cluster.x-k8s.io/uninitialized
// taint the bootstrap provider registered them with and propagates spec.template.spec.taints
// (package nodetaints, the Machine controller's rules), as upstream does for pool Nodes.
//
// It never deletes a Node it did not record in this pool's status.nodeRefs, and checks
// the recorded UID before deleting one, so another pool's Node, or a new Node that reuses
// a name, is never touched. It knows no provider type and creates no Machines (per-
// instance MachinePool Machines are not implemented).
//
// Replica counts come from the matched Nodes: ready is Node Ready=True, available is
// Ready for spec.template.spec.minReadySeconds, and up to date is a Node whose kubelet
// runs spec.template.spec.version (every matched Node when no version is set): without
// per-instance Machines the Node is all the core can see. status.replicas is the
// InfraMachinePool's status.replicas, or the length of its providerIDList when it does
// not report one. spec.replicas, when unset, means 1, unless the
// cluster.x-k8s.io/replicas-managed-by annotation hands the count to an autoscaler;
// the controller never writes spec.replicas.
package machinepool
