package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReadUsage_ReadsThisProcess(t *testing.T) {
	u, err := readUsage(os.Getpid())
	require.NoError(t, err)
	require.Positive(t, u.RSSBytes)
	require.GreaterOrEqual(t, u.PeakBytes, u.RSSBytes)
	require.GreaterOrEqual(t, u.CPUSeconds, 0.0)
}

func TestParsePrometheusText_ReadsSamplesAndTheirLabels(t *testing.T) {
	text := `# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="machineset",result="success"} 954
workqueue_queue_duration_seconds_sum{controller="machineset",name="machineset"} 2766.5 1733450000000
go_goroutines 312
quoted{a="x\"y,z"} 1e3
broken{a="x" 5
`
	require.Equal(t, []promSample{
		{"controller_runtime_reconcile_total", map[string]string{"controller": "machineset", "result": "success"}, 954},
		{"workqueue_queue_duration_seconds_sum", map[string]string{"controller": "machineset", "name": "machineset"}, 2766.5},
		{"go_goroutines", map[string]string{}, 312},
		{"quoted", map[string]string{"a": `x"y,z`}, 1000},
	}, parsePrometheusText(text), "an unterminated label set is skipped")
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
