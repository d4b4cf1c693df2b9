// Package provider is the in-memory scale provider the benchmarks (test/cmd/bench)
// run the core against: an infrastructure, bootstrap and control-plane provider that
// creates nothing outside the API server, so a 2-core machine can carry a thousand
// Machines. It reconciles contracts' generic test kinds (capstan.dev/contracts/
// testing/crds), which follow the v1beta2 contract and accept any field, so no CRD
// of its own is needed:
//
//   - GenericInfrastructureCluster: hands the core a <cluster>-kubeconfig Secret,
//     reports the control-plane endpoint and status.initialization.provisioned;
//   - GenericControlPlane: reports status.initialization.controlPlaneInitialized (a
//     control plane without Machines, like a managed one);
//   - GenericBootstrapConfig: reports status.dataSecretName and
//     status.initialization.dataSecretCreated (the Secret itself is not written: no
//     core reads bootstrap data, and writing it would only add provider writes);
//   - GenericInfrastructureMachine: once its Machine has bootstrap data, sets
//     spec.providerID, status.addresses and status.initialization.provisioned, then
//     registers a Ready Node with that providerID and a nodeInfo, as a kubelet would.
//
// Each object becomes provisioned Options.ProvisionDelay after its creation (default
// 0). Templates need no controller: the core clones them.
//
// The workload cluster of every Cluster is the management API server itself, reached
// through a <cluster>-kubeconfig holding Options.WorkloadKubeconfig. It costs no
// process, no port and no memory beyond the Nodes, and the core connects to it
// exactly as to a real cluster (kubeconfig Secret, health probes, Node watches). Its
// price: every Cluster sees every Node of every Cluster, so with many Clusters each
// workload cache holds all Nodes (the core matches Nodes by providerID, so behaviour
// is unaffected). Writes stay attributable: the provider writes as its own user, and
// the workload kubeconfig names another user, so in the API server's audit log the
// core's writes to Nodes are told apart from the provider's registrations.
//
// The four reconcilers share one package, unlike Capstan's providers (one controller
// per package): each is a few dozen lines, and none has a deletion path — the
// provider holds no external resource and sets no finalizer, so deleting an object
// is immediate and the core's own deletion order (drain, infrastructure, bootstrap,
// Node) is what a benchmark measures. It does not honour pause and has no RBAC
// markers: it is a benchmark instrument, not a product provider, and must not be
// imported by one.
package provider
