package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBench_SmokeRunMeasuresEveryScenario runs the whole harness tiny, as CI does:
// 50 Machines, 1,000 foreign objects, 20 s of steady state, 5 Clusters of 2 Machines. It fails when the
// harness breaks — a scenario that does not finish, a figure that goes missing, a
// report that does not render — never on how fast anything was.
func TestBench_SmokeRunMeasuresEveryScenario(t *testing.T) {
	cfg := DefaultConfig()
	cfg.WorkDir = t.TempDir()
	cfg.Command = "go test " + t.Name()
	cfg.FloorObjects = 50
	cfg.MachineDeployments, cfg.Replicas = 5, 10
	cfg.SteadyWindow = 20 * time.Second
	cfg.Clusters, cfg.WorkersPerCluster = 5, 1
	cfg.ForeignSecrets, cfg.ForeignConfigMaps = 500, 500
	cfg.MemorySettle = 5 * time.Second
	cfg.Timeout = 10 * time.Minute // a bound against hanging (a rollout is 10 steps), not an assertion on speed
	cfg.Log = testLog{t}

	report, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Empty(t, report.Failures)

	got := map[string]bool{}
	for _, f := range report.Figures {
		got[f.Scenario+" / "+f.Name] = true
	}
	for _, want := range []string{
		"1 Floor / create + status patch of a CR, 8 concurrent",
		"2 50 Machines / wall time", "2 50 Machines / core writes per Machine", "2 50 Machines / core manager peak RSS (VmHWM)",
		"2 50 Machines / scale provider writes per Machine",
		"2 50 Machines / writes by everyone (the ratio's count) per Machine",
		"2 50 Machines / CPU: kube-apiserver", "2 50 Machines / CPU: etcd", "2 50 Machines / CPU: core manager",
		"3 Rollout / CPU: kube-apiserver", "5 Deletion / CPU: kube-apiserver",
		"7 Steady state / core writes per minute (over 20s)", "7 Steady state / core manager CPU at rest",
		"3 Rollout / wall time", "3 Rollout / core writes per replaced Machine",
		"5 Deletion / wall time", "5 Deletion / core writes per deleted Machine",
		"4 5 Clusters / wall time to every Machine Running",
		"4 5 Clusters / core's new TCP connections to the API server per Cluster", "4 5 Clusters / core goroutines per Cluster",
		"6 Memory vs. foreign objects / RSS with them ÷ RSS idle",
		"6 Memory vs. foreign objects / bootstrap-kubeadm manager RSS with them ÷ RSS idle",
		"6 Memory vs. foreign objects / infrastructure-docker manager RSS with them ÷ RSS idle",
	} {
		require.True(t, got[want], "figure %q missing from the report: %v", want, got)
	}
	controllers := 0
	for _, f := range report.Figures {
		if f.Scenario == "2 50 Machines" && strings.HasPrefix(f.Name, "core controller ") {
			controllers++
		}
		switch f.Name {
		case "core writes per Machine", "core manager peak RSS (VmHWM)", "CPU: kube-apiserver", "CPU: core manager":
			require.Positive(t, f.Value, "%s / %s", f.Scenario, f.Name)
		}
	}
	require.Positive(t, controllers, "scenario 2 reports its busiest controllers from the core's metrics")

	for _, scenario := range AllScenarios[1:] { // the floor is the API server's, not the core's
		o, ok := outcomeOf(report, scenario)
		require.True(t, ok, "scenario %s has no outcome for the side-by-side report", scenario)
		require.Empty(t, o.Unfinished, scenario)
	}

	var table, js bytes.Buffer
	require.NoError(t, report.WriteTable(&table))
	require.Contains(t, table.String(), "core writes per Machine")
	require.NoError(t, report.WriteJSON(&js))
	var decoded Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &decoded))
	require.Equal(t, len(report.Figures), len(decoded.Figures))

	doc := filepath.Join(t.TempDir(), "benchmarks.md")
	require.NoError(t, os.WriteFile(doc, []byte("# Benchmarks\n"), 0o644))
	require.NoError(t, report.AppendMarkdown(doc))
	md, err := os.ReadFile(doc)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(md), "# Benchmarks\n"), "appending keeps what was there")
	require.Contains(t, string(md), "commit "+report.Commit)
	require.Contains(t, string(md), "| 2 50 Machines | core writes per Machine |")
}

// testLog sends the harness's progress lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
