// Package bench is the instrument behind `make bench` (issue 14): it measures how
// a core manager scales, what it writes and what it costs, against the write rate
// of the API server it talks to, measured in the same run on the same machine.
//
// A run starts a kube-apiserver + etcd of its own (contracts/envtest, built by
// `make k8s-binaries`; never a user's management plane) with an audit policy that
// logs every write, and kube-controller-manager's garbage collector when it has been
// built. The core manager runs as a separate process of its own binary
// (CORE_MANAGER, default: Capstan's, built now) on its own CRDs (CORE_CRDS), as user
// capstan-bench-core; the scale provider (capstan.dev/test/scale/provider) runs in
// this process as capstan-bench-provider; the core reaches the workload cluster as
// capstan-bench-workload. Writes are counted per user from the audit log, so the
// core's writes are never mixed with the provider's or the harness's. CPU seconds
// and resident memory come from /proc/<pid>: the core manager's, and, for the timed
// scenarios, every process of the run (kube-apiserver, etcd, the core, this process,
// the garbage collector) and the whole machine, so each report names what was busy
// and whether something outside the run took CPU from it. --profiling adds CPU
// profiles of the core, of the API server and of this process for the first minute
// of scenarios 2, 3 and 5, and heap profiles of the core.
//
// Scenarios, in run order (numbers are the issue's):
//
//  1. floor: creates + status patches of a CR at concurrency 1, 8 and 32, nothing
//     watching; durations below are compared with the rate at the level nearest the
//     core's workers per controller ("ratio to floor": wall time ÷ (every write the
//     API server took in the scenario ÷ that rate); 1.0 = as fast as the API server
//     takes writes when nothing watches).
//  2. machines: one Cluster and MachineDeployments × Replicas created at once; time to
//     every Machine Running and MachineDeployment Available; core writes per Machine
//     by verb and resource; core CPU seconds and peak RSS.
//  7. steady: then writes per minute and CPU at rest over a window (goal: no write).
//  3. rollout: every MachineDeployment moved to a new template at once; time until
//     all are replaced and Available, writes per replaced Machine.
//  5. deletion: the Cluster and its templates deleted; time until none of its
//     objects is left in the management cluster.
//  6. foreign: fresh core, bootstrap and docker managers, their RSS idle, then with
//     Secrets (half labelled with a cluster name) and 2 KB ConfigMaps they have no
//     use for (goal ≤ 1.1×); each RSS is read once it stops moving (settleRSS).
//  4. clusters: a fresh core, then many Clusters of one control-plane Machine and a
//     few workers; time to all Running, and a workload connection's cost.
//
// RunSideBySide (make bench-upstream) runs the scenarios twice, back to back, each on
// a plane of its own: Capstan's core, then a peer's (upstream Cluster API's core on its
// own CRDs, given a self-signed webhook certificate it refuses to start without), and
// sets each scenario's Outcome side by side — wall time and Capstan's speed-up, the
// core's writes per object by verb, its CPU seconds and peak memory. A scenario the peer
// does not finish within the timeout is shown with how far it got, not as a failure.
//
// Waits inside a scenario are measurement windows (settling, steady state), not
// test synchronisation; every scenario is bounded by Config.Timeout, and one that
// runs out is reported as a failure while the run goes on.
package bench
