package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"capstan.dev/contracts/manager"
	"capstan.dev/test/scale/provider"
)

// The scenarios a run can take, in the order they run. Their numbers are the issue's.
const (
	ScenarioFloor    = "floor"    // 1
	ScenarioMachines = "machines" // 2
	ScenarioSteady   = "steady"   // 7, after 2
	ScenarioRollout  = "rollout"  // 3, after 2
	ScenarioDeletion = "deletion" // 5, after 2
	ScenarioForeign  = "foreign"  // 6
	ScenarioClusters = "clusters" // 4, last: its Clusters stay
)

// AllScenarios is every scenario, in run order.
var AllScenarios = []string{ScenarioFloor, ScenarioMachines, ScenarioSteady, ScenarioRollout, ScenarioDeletion, ScenarioForeign, ScenarioClusters}

// Config sizes and aims a run.
type Config struct {
	// WorkDir keeps the audit log, kubeconfigs, manager logs and profiles; a
	// temporary directory (removed afterwards) when empty.
	WorkDir string
	// CoreManager is the core manager binary to measure; empty builds Capstan's.
	CoreManager string
	// CoreManagerArgs are appended to the core manager's flags.
	CoreManagerArgs []string
	// CoreCRDs is a directory with the core CRDs to install; empty: Capstan's.
	CoreCRDs string
	// Profiling passes --profiling to the core and saves CPU profiles of the core
	// and of the API server and heap profiles of the core under WorkDir/profiles
	// (the core's need Capstan's core).
	Profiling bool
	// Command is recorded in the report as what was run.
	Command string
	// Scenarios to run (see AllScenarios); steady, rollout and deletion need machines.
	Scenarios []string

	FloorObjects     int   // objects created and status-patched per concurrency level
	FloorConcurrency []int // concurrency levels of the floor
	// CoreConcurrency is the core's workers per controller; the floor measured at
	// the nearest level not above it is the one other figures are compared with.
	CoreConcurrency int

	MachineDeployments int
	Replicas           int
	ProvisionDelay     time.Duration
	SteadyWindow       time.Duration
	// Clusters and WorkersPerCluster size scenario 4.
	Clusters          int
	WorkersPerCluster int
	ForeignSecrets    int
	ForeignConfigMaps int
	ConfigMapBytes    int
	// MemorySettle bounds the wait for a manager's resident memory to stop moving
	// before it is read (settleRSS).
	MemorySettle time.Duration
	// Timeout bounds each scenario; one that runs out is reported, not waited for.
	Timeout time.Duration
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// DefaultConfig is the full benchmark of issue 14.
func DefaultConfig() Config {
	return Config{
		Scenarios: AllScenarios, FloorObjects: 500, FloorConcurrency: []int{1, 8, 32}, CoreConcurrency: 10,
		MachineDeployments: 100, Replicas: 10, SteadyWindow: 3 * time.Minute, Clusters: 100, WorkersPerCluster: 3,
		ForeignSecrets: 10000, ForeignConfigMaps: 10000, ConfigMapBytes: 2048,
		MemorySettle: 60 * time.Second, Timeout: 15 * time.Minute,
	}
}

// run is the state of one benchmark run.
type run struct {
	cfg        Config
	plane      *plane
	audit      *auditLog
	report     *Report
	coreBin    string
	core       *coreManager
	floorRates map[int]float64
	// ctxErr is the run's context's Err: an interrupted run starts no further scenario.
	ctxErr func() error
	// stopProvider stops the in-process scale provider and waits for it.
	stopProvider func()
}

// Run starts a plane of its own, runs the scenarios of cfg against the core manager
// and the scale provider and returns the report. A scenario that fails is recorded
// in Report.Failures and the run goes on; an error means the run itself could not
// be set up.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	r := &run{cfg: cfg, floorRates: map[int]float64{}, ctxErr: ctx.Err, report: &Report{
		Date: time.Now().UTC(), Machine: describeMachine(), Commit: gitCommit(), Command: cfg.Command,
		CoreManager: cfg.CoreManager, Config: cfg.summary(),
	}}
	if r.report.CoreManager == "" {
		r.report.CoreManager = "Capstan core (built from this commit)"
	}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "capstan-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		r.cfg.WorkDir = dir
	}
	if err := os.MkdirAll(filepath.Join(r.cfg.WorkDir, "profiles"), 0o755); err != nil {
		return nil, err
	}
	// The scale provider runs in this process and logs through controller-runtime.
	providerLog, err := os.Create(filepath.Join(r.cfg.WorkDir, "scale-provider.log"))
	if err != nil {
		return nil, err
	}
	defer providerLog.Close()
	ctrl.SetLogger(zap.New(zap.WriteTo(providerLog)))
	r.logf("Starting kube-apiserver and etcd (work directory %s)", r.cfg.WorkDir)
	p, err := startPlane(r.cfg.WorkDir, cfg.CoreCRDs)
	if err != nil {
		return nil, err
	}
	r.plane, r.audit = p, &auditLog{path: p.auditLog}
	// Everything the run starts in this process (the provider, the harness's caches)
	// ends with this context, before the plane stops.
	ctx, cancel := context.WithCancel(ctx)
	if p.gc == nil {
		r.logf("kube-controller-manager is not built: no garbage collection (owned objects stay after deletion)")
	}
	err = r.scenarios(ctx)
	if r.core != nil {
		err = errors.Join(err, r.core.proc.stop())
	}
	if r.stopProvider != nil {
		r.stopProvider()
	}
	cancel()
	return r.report, errors.Join(err, p.stop())
}

func (r *run) scenarios(ctx context.Context) error {
	r.ctxErr = ctx.Err
	if r.want(ScenarioFloor) {
		r.record(ScenarioFloor, r.floor(ctx))
	}
	if !r.want(ScenarioMachines) && !r.want(ScenarioForeign) && !r.want(ScenarioClusters) {
		return nil
	}
	if err := r.startManagers(ctx); err != nil {
		return err
	}
	if r.want(ScenarioMachines) {
		converged, err := r.machines(ctx)
		r.record(ScenarioMachines, err)
		if r.want(ScenarioSteady) && err == nil {
			r.record(ScenarioSteady, r.steady(ctx, converged))
		}
		if r.want(ScenarioRollout) && err == nil {
			_, rerr := r.rollout(ctx)
			r.record(ScenarioRollout, rerr)
		}
		if r.want(ScenarioDeletion) {
			r.record(ScenarioDeletion, r.deletion(ctx))
		}
	}
	if r.want(ScenarioForeign) {
		r.record(ScenarioForeign, r.foreign(ctx))
	}
	if r.want(ScenarioClusters) {
		r.record(ScenarioClusters, r.clusters(ctx))
	}
	return nil
}

// startManagers starts the scale provider in this process and the core manager as
// a process of its own.
func (r *run) startManagers(ctx context.Context) error {
	r.coreBin = r.cfg.CoreManager
	if r.coreBin == "" {
		r.logf("Building the core manager")
		bin, err := buildCore(r.cfg.WorkDir)
		if err != nil {
			return err
		}
		r.coreBin = bin
	}
	if err := r.startProvider(ctx); err != nil {
		return err
	}
	return r.restartCore()
}

func (r *run) startProvider(ctx context.Context) error {
	cfg, err := r.plane.providerConfig()
	if err != nil {
		return err
	}
	opts := manager.NewOptions("scale-provider", "scale-provider", "default")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress = false, "0", "0"
	opts.KubeAPIQPS, opts.KubeAPIBurst = 5000, 10000
	mgr, err := manager.New(opts, r.plane.env.Scheme, cfg)
	if err != nil {
		return err
	}
	if err := provider.SetupWithManager(mgr, provider.Options{
		ProvisionDelay: r.cfg.ProvisionDelay, WorkloadKubeconfig: r.plane.workloadKubeconfig,
	}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			r.logf("The scale provider stopped: %v", err)
		}
	}()
	r.stopProvider = func() { cancel(); <-done }
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("the scale provider's caches did not sync")
	}
	return nil
}

// restartCore stops the running core manager, if any, and starts a fresh one.
func (r *run) restartCore() error {
	if r.core != nil {
		if err := r.core.proc.stop(); err != nil {
			return err
		}
	}
	r.logf("Starting the core manager %s", r.coreBin)
	c, err := startCore(r.coreBin, r.plane, r.cfg.WorkDir, r.cfg.Profiling, r.cfg.CoreManagerArgs)
	r.core = c
	return err
}

// want reports whether scenario is to run; none is once the run has been interrupted.
func (r *run) want(scenario string) bool {
	return r.ctxErr() == nil && slices.Contains(r.cfg.Scenarios, scenario)
}

func (r *run) record(scenario string, err error) {
	if err != nil {
		r.logf("Scenario %s failed: %v", scenario, err)
		r.report.fail(scenario, err)
		r.report.addOutcome(Outcome{Scenario: scenario, Title: r.cfg.title(scenario), Unfinished: unfinished(err)})
	}
}

func (r *run) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// summary is the configuration as the report shows it.
func (c Config) summary() map[string]string {
	return map[string]string{
		"scenarios":          strings.Join(c.Scenarios, ","),
		"floorObjects":       fmt.Sprint(c.FloorObjects),
		"floorConcurrency":   fmt.Sprint(c.FloorConcurrency),
		"machineDeployments": fmt.Sprint(c.MachineDeployments),
		"replicas":           fmt.Sprint(c.Replicas),
		"provisionDelay":     c.ProvisionDelay.String(),
		"steadyWindow":       c.SteadyWindow.String(),
		"clusters":           fmt.Sprint(c.Clusters),
		"workersPerCluster":  fmt.Sprint(c.WorkersPerCluster),
		"foreignSecrets":     fmt.Sprint(c.ForeignSecrets),
		"foreignConfigMaps":  fmt.Sprint(c.ForeignConfigMaps),
		"coreManagerArgs":    strings.Join(c.CoreManagerArgs, " "),
		"coreCRDs":           c.CoreCRDs,
	}
}
