package mgmt

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A plane whose binaries are reached through a symbolic link (e.g. a cache directory that is a
// link) must still recognise the processes it started: the kernel reports the resolved path.
func TestRunningPID_KnowsAProcessStartedThroughASymlink(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	dir := t.TempDir()
	link := filepath.Join(dir, "linked-sleep")
	require.NoError(t, os.Symlink(sleep, link))
	pidPath := filepath.Join(dir, "sleep.pid")
	pid, err := startDetached(link, []string{"60"}, filepath.Join(dir, "sleep.log"), pidPath)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	require.Equal(t, pid, runningPID(pidPath))
	require.NoError(t, stopProcess(pidPath, 5*time.Second))
	require.False(t, alive(pid), "stopped")
}
