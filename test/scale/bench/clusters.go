package bench

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/testing/crds"
)

// clustersNamespace holds the Clusters of scenario 4.
const clustersNamespace = "bench-clusters"

// clusters is scenario 4: Clusters × (one control-plane Machine without a ControlPlane
// object + a MachineDeployment of WorkersPerCluster), created at once on a fresh core;
// the time until every Machine is Running, and what each Cluster's workload connection
// costs the core: TCP connections to the API server (shared here, see below),
// goroutines and resident memory per Cluster.
func (r *run) clusters(ctx context.Context) error {
	ns := clustersNamespace
	if err := r.restartCore(); err != nil { // a fresh process: the figures are this scenario's
		return err
	}
	if err := r.createNamespace(ctx, ns); err != nil {
		return err
	}
	obs, err := r.observe(ctx, ns)
	if err != nil {
		return err
	}
	if _, err := r.settleRSS(ctx, []namedManager{{"core manager", r.core}}, r.cfg.MemorySettle); err != nil {
		return err
	}
	before, err := r.connectionCost(ctx)
	if err != nil {
		return err
	}
	usageBefore, err := r.core.usage()
	if err != nil {
		return err
	}
	n, workers := r.cfg.Clusters, r.cfg.WorkersPerCluster
	want := n * (1 + workers)
	objs := workerTemplates(ns)
	for i := range n {
		objs = append(objs, smallCluster(ns, i, workers)...)
	}
	r.logf("Clusters: creating %d Clusters of 1 control-plane Machine and %d workers", n, workers)
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	err = r.waitFor(ctx, "every Machine of every Cluster Running", func() (bool, string, error) {
		return obs.converged(ctx, want, n, workers)
	})
	took := time.Since(start)
	if err != nil {
		return err
	}
	last, err := r.audit.quietSince(5*time.Second, 2*time.Minute, start, coreUsers...)
	if err != nil {
		return err
	}
	after, err := r.connectionCost(ctx)
	if err != nil {
		return err
	}
	scenario := r.cfg.title(ScenarioClusters)
	if err := r.clustersOutcome(want, took, start, last, usageBefore); err != nil {
		return err
	}
	r.report.add(Figure{Scenario: scenario, Name: "wall time to every Machine Running", Value: took.Seconds(), Unit: "s"})
	conns := after.connections - before.connections
	// No goal: client-go shares one transport (one TCP connection) among identical
	// kubeconfigs, and here every Cluster's kubeconfig is the same, so this counts what
	// the connections share, not how many the ClusterCache holds.
	r.report.add(Figure{Scenario: scenario, Name: "core's new TCP connections to the API server per Cluster", Value: float64(conns) / float64(n)})
	r.report.add(Figure{Scenario: scenario, Name: "core goroutines per Cluster", Value: float64(after.goroutines-before.goroutines) / float64(n)})
	r.report.add(Figure{Scenario: scenario, Name: "core RSS per Cluster (its Machines and workload cache included)",
		Value: mib(after.rss-before.rss) * 1024 / float64(n), Unit: "KiB"})
	r.report.add(Figure{Scenario: scenario, Name: "core RSS before → after", Value: mib(after.rss), Unit: fmt.Sprintf("MiB (from %.0f)", mib(before.rss))})
	return nil
}

// clustersOutcome records scenario 4's outcome: the core's writes per Machine over
// [start, last], its CPU since before and its peak memory.
func (r *run) clustersOutcome(machines int, took time.Duration, start, last time.Time, before usage) error {
	_, core, _, err := r.writes(start, last.Add(time.Millisecond))
	if err != nil {
		return err
	}
	after, err := r.core.usage()
	if err != nil {
		return err
	}
	r.report.addOutcome(Outcome{Scenario: ScenarioClusters, Title: r.cfg.title(ScenarioClusters), WallSeconds: took.Seconds(),
		Per: "Machine", Writes: perVerb(core, float64(machines)), CPUSeconds: after.CPUSeconds - before.CPUSeconds,
		PeakRSSMiB: mib(after.PeakBytes)})
	return nil
}

// connectionCost is what scenario 4 reads from the core before and after.
type connectionCost struct {
	connections, goroutines int
	rss                     int64
}

func (r *run) connectionCost(ctx context.Context) (connectionCost, error) {
	u, err := r.core.usage()
	if err != nil {
		return connectionCost{}, err
	}
	host, err := url.Parse(r.plane.env.Config.Host)
	if err != nil {
		return connectionCost{}, err
	}
	port, err := strconv.Atoi(host.Port())
	if err != nil {
		return connectionCost{}, fmt.Errorf("the API server's port in %s: %w", r.plane.env.Config.Host, err)
	}
	conns, err := establishedConnections(r.core.proc.pid(), port)
	if err != nil {
		return connectionCost{}, err
	}
	g, err := r.core.goroutines(ctx)
	if err != nil {
		return connectionCost{}, err
	}
	return connectionCost{connections: conns, goroutines: g, rss: u.RSSBytes}, nil
}

// smallCluster is the i-th Cluster of scenario 4: an InfraCluster, no control-plane
// provider, one control-plane Machine with its own bootstrap config and
// infrastructure machine, and a MachineDeployment of workers.
func smallCluster(ns string, i, workers int) []client.Object {
	name := fmt.Sprintf("c-%03d", i)
	cp := name + "-cp"
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: ref(crds.GenericInfrastructureClusterGVK, name)}}
	objs := []client.Object{c}
	for _, o := range []struct {
		gvk  schema.GroupVersionKind
		name string
	}{{crds.GenericInfrastructureClusterGVK, name}, {crds.GenericBootstrapConfigGVK, cp}, {crds.GenericInfrastructureMachineGVK, cp}} {
		u := newGeneric(o.gvk)
		u.SetNamespace(ns)
		u.SetName(o.name)
		u.Object["spec"] = map[string]any{}
		objs = append(objs, u)
	}
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: cp, Namespace: ns, Labels: map[string]string{
			clusterv1.ClusterNameLabel: name, clusterv1.MachineControlPlaneLabel: ""}},
		Spec: clusterv1.MachineSpec{ClusterName: name, Version: "v1.37.2",
			Bootstrap:         clusterv1.Bootstrap{ConfigRef: ref(crds.GenericBootstrapConfigGVK, cp)},
			InfrastructureRef: ref(crds.GenericInfrastructureMachineGVK, cp)},
	}
	return append(objs, machine, clusterMachineDeployment(ns, name, name+"-md", workers))
}
