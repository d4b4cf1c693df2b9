// Command bench is `make bench`: it measures how the core manager scales — against
// the write rate of a kube-apiserver and etcd of its own on this machine (never a
// user's management plane) — with the in-memory scale provider, prints one table
// (or JSON with -o json) and can append the dated run to docs/benchmarks.md. The
// scenarios and what they measure are in capstan.dev/test/scale/bench.
//
// CORE_MANAGER=<binary>, CORE_CRDS=<dir> and CORE_MANAGER_ARGS run the same
// scenarios against another implementation of the core contract. --peer upstream (or
// --peer-manager, --peer-crds, --peer-name) runs them twice, back to back — Capstan's
// core, then the peer's — and prints one side-by-side table, which --side-by-side
// writes into docs/benchmarks.md in place of the previous one (make bench-upstream).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"capstan.dev/test/scale/bench"
)

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
	os.Exit(code)
}

func run() (int, error) {
	cfg := bench.DefaultConfig()
	output := flag.String("o", "table", "Output format: table or json.")
	appendTo := flag.String("append", "", "Append the run to this Markdown file (e.g. docs/benchmarks.md).")
	scenarios := flag.String("scenarios", strings.Join(bench.AllScenarios, ","), "Scenarios to run, in their fixed order.")
	floorLevels := flag.String("floor-concurrency", "1,8,32", "Concurrency levels of the floor.")
	coreArgs := flag.String("core-manager-args", os.Getenv("CORE_MANAGER_ARGS"), "Extra core manager flags, space separated (default $CORE_MANAGER_ARGS).")
	flag.StringVar(&cfg.WorkDir, "work-dir", "", "Keep the audit log, manager logs and profiles here (default: a temporary directory, removed).")
	flag.StringVar(&cfg.CoreManager, "core-manager", os.Getenv("CORE_MANAGER"), "Core manager binary (default $CORE_MANAGER, else Capstan's core built now).")
	flag.StringVar(&cfg.CoreCRDs, "core-crds", os.Getenv("CORE_CRDS"), "Directory of core CRDs (default $CORE_CRDS, else Capstan's).")
	flag.BoolVar(&cfg.Profiling, "profiling", false, "Run the core with --profiling; save CPU profiles of the core and of the API server (scenarios 2, 3, 5) and heap profiles of the core in <work-dir>/profiles.")
	flag.StringVar(&cfg.Command, "command", "", "The command recorded in the report (default: this command line).")
	flag.IntVar(&cfg.FloorObjects, "floor-objects", cfg.FloorObjects, "Objects created and status-patched per floor concurrency level.")
	flag.IntVar(&cfg.CoreConcurrency, "core-concurrency", cfg.CoreConcurrency, "The core's workers per controller, to pick the floor level ratios use.")
	flag.IntVar(&cfg.MachineDeployments, "machine-deployments", cfg.MachineDeployments, "MachineDeployments of scenario 2.")
	flag.IntVar(&cfg.Replicas, "replicas", cfg.Replicas, "Replicas of each MachineDeployment.")
	flag.DurationVar(&cfg.ProvisionDelay, "provision-delay", cfg.ProvisionDelay, "How long the scale provider takes to provision an object.")
	flag.DurationVar(&cfg.SteadyWindow, "steady-window", cfg.SteadyWindow, "How long scenario 7 counts writes at rest.")
	flag.IntVar(&cfg.Clusters, "clusters", cfg.Clusters, "Clusters of scenario 4.")
	flag.IntVar(&cfg.WorkersPerCluster, "workers-per-cluster", cfg.WorkersPerCluster, "Workers of each Cluster of scenario 4 (besides its control-plane Machine).")
	flag.IntVar(&cfg.ForeignSecrets, "foreign-secrets", cfg.ForeignSecrets, "Secrets of scenario 6.")
	flag.IntVar(&cfg.ForeignConfigMaps, "foreign-configmaps", cfg.ForeignConfigMaps, "ConfigMaps of scenario 6.")
	flag.IntVar(&cfg.ConfigMapBytes, "configmap-bytes", cfg.ConfigMapBytes, "Data bytes per ConfigMap of scenario 6.")
	flag.DurationVar(&cfg.MemorySettle, "memory-settle", cfg.MemorySettle, "The longest wait for a manager's resident memory to stop moving before it is read.")
	flag.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "Bound of each scenario.")
	var peer peerFlags
	peer.register()
	flag.Parse()

	if *output != "table" && *output != "json" {
		return 2, fmt.Errorf("-o must be table or json, got %q", *output)
	}
	var err error
	if cfg.Scenarios, err = parseScenarios(*scenarios); err != nil {
		return 2, err
	}
	if cfg.FloorConcurrency, err = parseLevels(*floorLevels); err != nil {
		return 2, err
	}
	cfg.CoreManagerArgs = strings.Fields(*coreArgs)
	if cfg.Command == "" {
		cfg.Command = strings.Join(os.Args, " ")
	}
	cfg.Log = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if peer.wanted() {
		if *appendTo != "" {
			return 2, fmt.Errorf("--append is for a run of one core; a side-by-side run replaces its section with --side-by-side")
		}
		return runSideBySide(ctx, cfg, peer, *output)
	}
	started := time.Now()
	report, err := bench.Run(ctx, cfg)
	if report == nil {
		return 1, err
	}
	fmt.Fprintf(os.Stderr, "Finished in %s\n", time.Since(started).Round(time.Second))
	if *output == "json" {
		_ = report.WriteJSON(os.Stdout)
	} else {
		_ = report.WriteTable(os.Stdout)
	}
	if ctx.Err() != nil {
		return 1, fmt.Errorf("interrupted: the run is not appended to %s", *appendTo)
	}
	if *appendTo != "" {
		if aerr := report.AppendMarkdown(*appendTo); aerr != nil {
			return 1, fmt.Errorf("appending to %s: %w", *appendTo, aerr)
		}
	}
	if err != nil || len(report.Failures) > 0 {
		return 1, err
	}
	return 0, nil
}

func parseScenarios(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		known := false
		for _, k := range bench.AllScenarios {
			known = known || k == s
		}
		if !known {
			return nil, fmt.Errorf("--scenarios: unknown scenario %q (known: %s)", s, strings.Join(bench.AllScenarios, ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

func parseLevels(list string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--floor-concurrency: %q is not a positive integer", s)
		}
		out = append(out, n)
	}
	return out, nil
}
