package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

func TestReadUsage_ReadsThisProcess(t *testing.T) {
	u, err := readUsage(os.Getpid())
	require.NoError(t, err)
	require.Positive(t, u.RSSBytes)
	require.GreaterOrEqual(t, u.PeakBytes, u.RSSBytes)
	require.GreaterOrEqual(t, u.CPUSeconds, 0.0)
}

// The core's metrics as controller-runtime exposes them become each controller's work: every
// reconcile result counted, the histograms' sums and counts, the workers; another
// controller's and unlabelled series stay apart.
func TestWorkFrom_AddsUpEachControllersMetrics(t *testing.T) {
	text := `# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="machineset",result="success"} 954
controller_runtime_reconcile_total{controller="machineset",result="error"} 6
controller_runtime_reconcile_total{controller="machine",result="success"} 12
# TYPE controller_runtime_reconcile_time_seconds histogram
controller_runtime_reconcile_time_seconds_bucket{controller="machineset",le="+Inf"} 960
controller_runtime_reconcile_time_seconds_sum{controller="machineset"} 902.5
controller_runtime_reconcile_time_seconds_count{controller="machineset"} 960
# TYPE controller_runtime_max_concurrent_reconciles gauge
controller_runtime_max_concurrent_reconciles{controller="machineset"} 10
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{controller="machineset",name="machineset",le="+Inf"} 954
workqueue_queue_duration_seconds_sum{controller="machineset",name="machineset"} 2766.5
workqueue_queue_duration_seconds_count{controller="machineset",name="machineset"} 954
# TYPE go_goroutines gauge
go_goroutines 312
`
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, coreWork{Controllers: map[string]*controllerWork{
		"machineset": {Reconciles: 960, ReconcileSeconds: 902.5, QueueSeconds: 2766.5, QueueAdds: 954, Workers: 10},
		"machine":    {Reconciles: 12},
	}}, workFrom(families))
}

func TestMachineCPU_CountsTimeOnEveryCPU(t *testing.T) {
	busy, total, err := machineCPU()
	require.NoError(t, err)
	require.Positive(t, busy, "this machine has run something since boot")
	require.Greater(t, total, busy, "idle time is not busy")
}

// The API server appends to the audit log while the benchmark reads it: a line it
// is still writing is read on the next refresh, never lost or read twice.
func TestAuditLog_FollowsAGrowingLogByUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	line := func(user, verb, resource string) string {
		return `{"verb":"` + verb + `","user":{"username":"` + user + `"},"userAgent":"x","objectRef":{"resource":"` +
			resource + `","subresource":"status"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-04T10:00:00.000000Z"}`
	}
	first := line(UserCore, "patch", "machines") + "\n" + line(UserProvider, "create", "nodes") + "\n"
	partial := line(UserWorkload, "patch", "nodes")
	require.NoError(t, os.WriteFile(path, []byte(first+partial[:40]), 0o644))

	a := &auditLog{path: path}
	from := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	core, err := a.between(from, to, coreUsers...)
	require.NoError(t, err)
	require.Len(t, core, 1)
	require.Equal(t, "machines/status", core[0].Resource)

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(partial[40:] + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	core, err = a.between(from, to, coreUsers...)
	require.NoError(t, err)
	require.Len(t, core, 2, "the line completed since is read once")
	require.Equal(t, []verbResourceCount{{"patch", "machines/status", 1}, {"patch", "nodes/status", 1}}, byVerbAndResource(core))
	everyone, err := a.between(from, to)
	require.NoError(t, err)
	require.Len(t, everyone, 3, "no user given: every write counts")
	outside, err := a.between(to, to.Add(time.Hour), coreUsers...)
	require.NoError(t, err)
	require.Empty(t, outside)
}

// Memory is steady once the last five readings stay in a band of 128 KiB: a manager
// taking in objects, or still creeping up after its start (100 KiB a second), or one
// with too few readings is not.
func TestRSSSteady(t *testing.T) {
	const mb, kb = 1 << 20, 1 << 10
	flat := []int64{50 * mb, 50 * mb, 50*mb + 60*kb, 50 * mb, 50*mb + 120*kb}
	require.True(t, rssSteady(flat))
	require.False(t, rssSteady(flat[1:]), "four readings are too few")
	growing := []int64{50 * mb, 52 * mb, 54 * mb, 56 * mb, 58 * mb}
	require.False(t, rssSteady(growing))
	require.True(t, rssSteady(append(growing, 58*mb, 58*mb, 58*mb, 58*mb+100*kb)), "steady once the growth stopped")
	creeping := []int64{42 * mb, 42*mb + 100*kb, 42*mb + 200*kb, 42*mb + 300*kb, 42*mb + 400*kb}
	require.False(t, rssSteady(creeping), "a manager still creeping up after its start")
}
