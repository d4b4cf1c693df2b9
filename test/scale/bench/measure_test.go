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
	outside, err := a.between(to, to.Add(time.Hour), coreUsers...)
	require.NoError(t, err)
	require.Empty(t, outside)
}
