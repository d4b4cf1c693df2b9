//go:build tilt

package tiltloop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/k8sbin"
)

const (
	repoRoot    = "../../../.."
	tiltVersion = "v0.33.21"
)

var (
	managers  = []string{"core", "bootstrap-kubeadm", "infrastructure-docker"}
	resources = append([]string{"mgmt"}, managers...)
)

func TestTiltCI_BringsUpThePlaneAndTheThreeManagersHealthy(t *testing.T) {
	tilt := tiltBinary(t)
	repo := copyRepo(t)

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tilt, "ci", "--port", "0", "--web-mode=prod", "--file", "Tiltfile")
	cmd.Dir = repo
	cmd.Env = tiltEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stopProcess(cmd.Process.Pid) })
	err := cmd.Wait()
	t.Logf("tilt ci finished in %s", time.Since(start).Round(time.Second))
	require.NoError(t, err, "tilt ci failed:\n%s", tailOf(out.String(), 80))
	log := out.String()
	require.True(t, strings.Contains(log, "SUCCESS. All workloads are healthy."), "%s", tailOf(log, 40))
	// Each resource was built and its serve_cmd started from the copy's bin dir.
	bin := filepath.Join(repo, ".capstan", "tilt", "bin")
	for _, r := range resources {
		require.True(t, strings.Contains(log, "Running cmd: "+filepath.Join(bin, r)+" "),
			"the serve_cmd of %s never ran:\n%s", r, tailOf(log, 40))
	}
	require.Equal(t, 3, strings.Count(log, "[readiness probe: success] ok"), "the three managers' /readyz probes")
}

func TestTiltUp_ChangeInOneProviderRebuildsAndRestartsOnlyThatManager(t *testing.T) {
	tilt := tiltBinary(t)
	repo := copyRepo(t)
	port := freePort(t)

	var out lockedBuffer
	up := exec.Command(tilt, "up", "--port", strconv.Itoa(port), "--web-mode=prod", "--stream", "--file", "Tiltfile")
	up.Dir = repo
	up.Env = tiltEnv()
	up.Stdout, up.Stderr = &out, &out
	up.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, up.Start())
	t.Cleanup(func() { stopProcess(up.Process.Pid) }) // runs before copyRepo's sweep
	get := func() map[string]resourceState { return uiResources(t, tilt, port) }

	var before map[string]resourceState
	waitFor(t, 15*time.Minute, &out, "every resource healthy", func() bool {
		before = get()
		return allHealthy(before)
	})
	t.Logf("healthy: %v", before)

	// A new file in core's main package: only core's deps match it.
	touched := filepath.Join(repo, "core", "zz_tilt_touch.go")
	require.NoError(t, os.WriteFile(touched, []byte("package main\n"), 0o644))

	var after map[string]resourceState
	waitFor(t, 5*time.Minute, &out, "core rebuilt, restarted and healthy", func() bool {
		after = get()
		c := after["core"]
		return c.LastBuildStart != before["core"].LastBuildStart && c.PID != 0 && c.PID != before["core"].PID && allHealthy(after)
	})
	// Give the file watcher time to (wrongly) trigger anything else before comparing.
	time.Sleep(5 * time.Second)
	after = get()
	t.Logf("after touching core: %v", after)
	require.True(t, allHealthy(after), "%v", after)
	require.NotEqual(t, before["core"].Builds, after["core"].Builds, "core was not rebuilt")
	for _, r := range []string{"mgmt", "bootstrap-kubeadm", "infrastructure-docker"} {
		require.Equal(t, before[r], after[r], "%s was rebuilt or restarted by a change under core/", r)
	}
}

// resourceState is what tells a rebuild (a new newest build) and a restart (a new
// serve_cmd PID) apart from one UIResource status.
type resourceState struct {
	Runtime, Update string
	PID             int64
	Builds          int
	LastBuildStart  string
}

func (s resourceState) String() string {
	return fmt.Sprintf("{runtime=%s update=%s pid=%d builds=%d last=%s}", s.Runtime, s.Update, s.PID, s.Builds, s.LastBuildStart)
}

func allHealthy(rs map[string]resourceState) bool {
	for _, r := range resources {
		s, ok := rs[r]
		if !ok || s.Runtime != "ok" || s.Update != "ok" || s.PID == 0 {
			return false
		}
	}
	return true
}

// uiResources reads the UIResources through `tilt get`, as a user would; nil while
// Tilt's API server does not answer yet.
func uiResources(t *testing.T, tilt string, port int) map[string]resourceState {
	t.Helper()
	cmd := exec.Command(tilt, "get", "uiresources", "-o", "json", "--port", strconv.Itoa(port))
	cmd.Env = tiltEnv()
	data, err := cmd.Output()
	if err != nil {
		return nil
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Status struct {
				RuntimeStatus     string `json:"runtimeStatus"`
				UpdateStatus      string `json:"updateStatus"`
				LocalResourceInfo *struct {
					PID int64 `json:"pid"`
				} `json:"localResourceInfo"`
				BuildHistory []struct {
					StartTime string `json:"startTime"`
					Error     string `json:"error"`
				} `json:"buildHistory"`
			} `json:"status"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(data, &list), "%s", data)
	out := map[string]resourceState{}
	for _, it := range list.Items {
		s := resourceState{Runtime: it.Status.RuntimeStatus, Update: it.Status.UpdateStatus, Builds: len(it.Status.BuildHistory)}
		if it.Status.LocalResourceInfo != nil {
			s.PID = it.Status.LocalResourceInfo.PID
		}
		if len(it.Status.BuildHistory) > 0 { // newest first
			s.LastBuildStart = it.Status.BuildHistory[0].StartTime
		}
		out[it.Metadata.Name] = s
	}
	return out
}

func waitFor(t *testing.T, timeout time.Duration, log *lockedBuffer, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for: %s; end of tilt's output:\n%s", timeout, what, tailOf(log.String(), 80))
		}
		time.Sleep(time.Second)
	}
}

// tiltBinary returns the Tilt `make tilt` builds, skipping when it is absent.
func tiltBinary(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("CAPSTAN_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		require.NoError(t, err)
		cache = filepath.Join(home, ".cache", "capstan")
	}
	tilt := filepath.Join(cache, "tilt", tiltVersion, "tilt")
	if _, err := os.Stat(tilt); err != nil {
		t.Skipf("no Tilt at %s: run 'make test-tilt' (it builds Tilt first; CI does)", tilt)
	}
	if _, err := k8sbin.Require("etcd", "kube-apiserver"); err != nil {
		t.Fatalf("the Tiltfile's management plane needs real binaries: %v", err)
	}
	return tilt
}

func tiltEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAPSTAN_TILT_DIR=") && !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	return append(env, "TILT_DISABLE_ANALYTICS=1")
}

// copyRepo copies the working tree's files (tracked and untracked, not ignored) into
// a temporary directory, and on cleanup stops everything the Tiltfile started there.
func copyRepo(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "repo")
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink/submodule
		}
		require.NoError(t, os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755))
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, f), data, info.Mode().Perm()))
	}
	t.Cleanup(func() { stopTiltfileProcesses(t, dst) })
	return dst
}

// stopTiltfileProcesses stops the serve_cmds the Tiltfile started in repo, in case
// Tilt exited without waiting for them: SIGTERM to each process whose executable lies
// under repo/.capstan/tilt/bin (`mgmt serve` then stops the plane), SIGKILL after a
// grace period, then `mgmt down` for a plane whose serve process was killed.
func stopTiltfileProcesses(t *testing.T, repo string) {
	binDir := filepath.Join(repo, ".capstan", "tilt", "bin")
	pids := processesUnder(binDir)
	for _, pid := range pids {
		t.Logf("stopping leftover process %d", pid)
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	mgmt := filepath.Join(binDir, "mgmt")
	if _, err := os.Stat(mgmt); err == nil {
		if out, err := exec.Command(mgmt, "--dir", filepath.Join(repo, ".capstan", "tilt", "mgmt"), "down").CombinedOutput(); err != nil {
			t.Errorf("mgmt down: %v\n%s", err, out)
		}
	}
}

// processesUnder lists the PIDs whose executable is a file under dir (a rebuilt
// binary shows as "<path> (deleted)").
func processesUnder(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, dir+string(filepath.Separator)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func alive(pid int) bool {
	// A zombie (exited, not yet reaped) counts as gone.
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// stopProcess stops Tilt (started in its own process group) with SIGINT, as Ctrl-C
// would, so it shuts its serve_cmds down; SIGKILL to its group after a grace period.
func stopProcess(pid int) {
	if !alive(pid) {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGINT)
	deadline := time.Now().Add(45 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if alive(pid) {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tailOf(s string, lines int) string {
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// lockedBuffer collects Tilt's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
