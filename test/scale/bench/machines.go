package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// machinesNamespace holds the Cluster of scenarios 2, 7 and 5.
const machinesNamespace = "bench-machines"

// coreUsers are the identities the core writes as: its own, and the workload
// kubeconfig's for the Nodes.
var coreUsers = []string{UserCore, UserWorkload}

// machines is scenario 2: one Cluster and MachineDeployments × Replicas workers,
// created at once; the time until every Machine is Running and every
// MachineDeployment Available, and what the core wrote and spent for it. It
// returns when the core's last write of the scenario happened.
func (r *run) machines(ctx context.Context) (time.Time, error) {
	ns := machinesNamespace
	if err := r.createNamespace(ctx, ns); err != nil {
		return time.Time{}, err
	}
	obs, err := r.observe(ctx, ns)
	if err != nil {
		return time.Time{}, err
	}
	want := r.cfg.MachineDeployments * r.cfg.Replicas
	objs := clusterObjects(ns)
	for i := range r.cfg.MachineDeployments {
		objs = append(objs, machineDeployment(ns, i, r.cfg.Replicas))
	}
	before, err := r.core.usage()
	if err != nil {
		return time.Time{}, err
	}
	r.logf("Machines: creating a Cluster and %d MachineDeployments of %d", r.cfg.MachineDeployments, r.cfg.Replicas)
	start, probeStart := time.Now(), r.probe(ctx)
	waitProfile := r.profileCPU(ctx, "machines")
	defer waitProfile()
	if err := r.createAll(ctx, objs); err != nil {
		return time.Time{}, err
	}
	err = r.waitFor(ctx, "every Machine Running and every MachineDeployment Available", func() (bool, string, error) {
		return obs.converged(ctx, want, r.cfg.MachineDeployments, r.cfg.Replicas)
	})
	took, probeEnd := time.Since(start), r.probe(ctx)
	if err != nil {
		return time.Time{}, err
	}
	r.logf("Machines: converged in %s; waiting for the core's writes to settle", took.Round(time.Millisecond))
	last, err := r.audit.quietSince(5*time.Second, 2*time.Minute, start, coreUsers...)
	if err != nil {
		return time.Time{}, err
	}
	r.saveHeap(ctx, "machines")
	after, err := r.core.usage()
	if err != nil {
		return time.Time{}, err
	}
	end := last.Add(time.Millisecond)
	scenario := r.cfg.title(ScenarioMachines)
	core, err := r.reportWrites(scenario, "Machine", want, start, end, took, true)
	if err != nil {
		return time.Time{}, err
	}
	r.timedOutcome(ScenarioMachines, "Machine", want, took, core, probeStart, probeEnd)
	r.report.add(Figure{Scenario: scenario, Name: "core manager CPU", Value: after.CPUSeconds - before.CPUSeconds, Unit: "s"})
	r.report.add(Figure{Scenario: scenario, Name: "core manager peak RSS (VmHWM)", Value: mib(after.PeakBytes), Unit: "MiB"})
	r.reportProbes(scenario, probeStart, probeEnd)
	return end, nil
}

// reportWrites adds the scenario's time and the core's writes per object, split by
// verb and resource, and the provider's writes, counted over [from, to). The time's
// ratio to the floor counts every write the API server took in that window (the
// core's, the scale provider's, the harness's and the garbage collector's): the
// floor is what the API server takes, whoever writes. The issue sets goals for
// scenario 2 only (≤ 1.5× the floor, ≤ 10 core writes per Machine): goals says
// whether they are this scenario's; the others show the same figures without. It
// returns the core's writes.
func (r *run) reportWrites(scenario, per string, n int, from, to time.Time, took time.Duration, goals bool) ([]write, error) {
	all, core, providerWrites, err := r.writes(from, to)
	if err != nil {
		return nil, err
	}
	ratio := r.ratioToFloor(took, len(all))
	timeFigure := Figure{Scenario: scenario, Name: "wall time", Value: took.Seconds(), Unit: "s", RatioToFloor: ratio}
	if ratio != nil && goals {
		timeFigure.Goal, timeFigure.Met = "≤ 1.5× floor", ptr.To(*ratio <= 1.5)
	}
	r.report.add(timeFigure)
	r.report.add(Figure{Scenario: scenario, Name: "writes by everyone (the ratio's count) per " + per, Value: float64(len(all)) / float64(n)})
	perObject := float64(len(core)) / float64(n)
	writesFigure := Figure{Scenario: scenario, Name: "core writes per " + per, Value: perObject}
	if goals {
		writesFigure.Goal, writesFigure.Met = "≤ 10", ptr.To(perObject <= 10)
	}
	r.report.add(writesFigure)
	conflicts := 0
	for _, w := range core {
		if w.Code == 409 {
			conflicts++
		}
	}
	for _, c := range byVerbAndResource(core) {
		r.report.add(Figure{Scenario: scenario, Name: fmt.Sprintf("  %s %s", c.Verb, c.Resource), Value: float64(c.Count) / float64(n)})
	}
	r.report.add(Figure{Scenario: scenario, Name: "  of which conflicts (409)", Value: float64(conflicts) / float64(n)})
	r.report.add(Figure{Scenario: scenario, Name: "scale provider writes per " + per, Value: float64(len(providerWrites)) / float64(n)})
	return core, nil
}

// writes are the writes completed in [from, to): everyone's (but the API server's own),
// and of those the core's and the scale provider's.
func (r *run) writes(from, to time.Time) (all, core, provider []write, err error) {
	if all, err = r.audit.between(from, to); err != nil {
		return nil, nil, nil, err
	}
	return all, byUser(all, coreUsers...), byUser(all, UserProvider), nil
}

// observer caches Machines, MachineSets and MachineDeployments of a namespace for the harness's
// checks: a watch costs the API server far less than listing a thousand Machines
// every second.
type observer struct {
	cache cache.Cache
}

func (r *run) observe(ctx context.Context, ns string) (*observer, error) {
	c, err := cache.New(r.plane.harnessConfig, cache.Options{Scheme: r.plane.env.Scheme,
		DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{&clusterv1.Machine{}, &clusterv1.MachineSet{}, &clusterv1.MachineDeployment{}} {
		if _, err := c.GetInformer(ctx, obj); err != nil {
			return nil, err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the harness's cache of namespace %s did not sync", ns)
	}
	return &observer{cache: c}, nil
}

// converged reports whether want Machines are Running and deployments
// MachineDeployments are Available with all replicas, and the progress so far.
func (o *observer) converged(ctx context.Context, want, deployments, replicas int) (bool, string, error) {
	machines := &clusterv1.MachineList{}
	if err := o.cache.List(ctx, machines, client.UnsafeDisableDeepCopy); err != nil {
		return false, "", err
	}
	phases := map[string]int{}
	for i := range machines.Items {
		phases[machines.Items[i].Status.Phase]++
	}
	mds := &clusterv1.MachineDeploymentList{}
	if err := o.cache.List(ctx, mds, client.UnsafeDisableDeepCopy); err != nil {
		return false, "", err
	}
	available := 0
	for i := range mds.Items {
		md := &mds.Items[i]
		if conditions.IsTrue(md, clusterv1.MachineDeploymentAvailableCondition) && ptr.Deref(md.Status.AvailableReplicas, 0) == int32(replicas) {
			available++
		}
	}
	running := phases[string(clusterv1.MachinePhaseRunning)]
	progress := fmt.Sprintf("%d/%d Machines (phases %v), %d/%d MachineDeployments Available", running, want, phases, available, deployments)
	return running == want && len(machines.Items) == want && available == deployments, progress, nil
}

// waitFor polls done until it is true, logging progress every 15 s, and fails after
// the scenario timeout with the last progress.
func (r *run) waitFor(ctx context.Context, what string, done func() (bool, string, error)) error {
	deadline := time.Now().Add(r.cfg.Timeout)
	lastLog := time.Now()
	for {
		ok, progress, err := done()
		if ok && err == nil {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("%s", progress)
		}
		if time.Now().After(deadline) {
			return &notFinishedError{what: what, timeout: r.cfg.Timeout, progress: err}
		}
		if time.Since(lastLog) >= 15*time.Second {
			r.logf("  waiting for %s: %v", what, err)
			lastLog = time.Now()
		}
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return err
		}
	}
}

// cpuProfileSeconds is the length of the core's CPU profile from a scenario's start:
// long enough to cover the burst of creations, short enough to wait for.
const cpuProfileSeconds = 60

// profileCPU records the CPU profiles of the core and of the API server for
// cpuProfileSeconds from now, when profiling is on; the returned func waits for
// them. (pprof drops a profile whose request is cancelled, so it cannot be cut to
// the scenario's length.)
func (r *run) profileCPU(ctx context.Context, scenario string) (wait func()) {
	if !r.cfg.Profiling {
		return func() {}
	}
	profile := fmt.Sprintf("profile?seconds=%d", cpuProfileSeconds)
	sources := map[string]func(context.Context, string, string) error{
		"core": r.core.saveProfile, "kube-apiserver": r.plane.saveProfile,
		"scale-provider-and-harness": saveOwnCPUProfile,
	}
	var wg sync.WaitGroup
	for name, save := range sources {
		path := filepath.Join(r.cfg.WorkDir, "profiles", name+"-cpu-"+scenario+".pprof")
		wg.Go(func() {
			if err := save(ctx, profile, path); err != nil {
				r.logf("CPU profile of the %s during %s: %v", name, scenario, err)
				return
			}
			r.logf("CPU profile of the %s during the first %ds of %s: %s", name, cpuProfileSeconds, scenario, path)
		})
	}
	return wg.Wait
}

// saveOwnCPUProfile records this process's CPU profile (the scale provider and the
// harness) for cpuProfileSeconds into path, so that what they cost the machine can be
// told apart from what the core and the API server cost it.
func saveOwnCPUProfile(ctx context.Context, _ string, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return errors.Join(err, f.Close())
	}
	err = sleep(ctx, cpuProfileSeconds*time.Second)
	pprof.StopCPUProfile()
	return errors.Join(err, f.Close())
}

// saveHeap saves the core's heap profile when profiling is on.
func (r *run) saveHeap(ctx context.Context, scenario string) {
	if !r.cfg.Profiling {
		return
	}
	path := filepath.Join(r.cfg.WorkDir, "profiles", "core-heap-"+scenario+".pprof")
	if err := r.core.saveProfile(ctx, "heap", path); err != nil {
		r.logf("heap profile of %s: %v", scenario, err)
		return
	}
	r.logf("Heap profile of the core after %s: %s", scenario, path)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }
