package localmanagers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test binary doubles as a fake manager: with CAPSTAN_FAKE_MANAGER set it serves
// /readyz on --health-addr until SIGTERM (or, set to "exit", fails at once).
func TestMain(m *testing.M) {
	switch os.Getenv("CAPSTAN_FAKE_MANAGER") {
	case "":
		os.Exit(m.Run())
	case "exit":
		fmt.Println("fake manager: cannot reach the API server")
		os.Exit(1)
	default:
		fakeManager()
	}
}

func fakeManager() {
	var health string
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "--health-addr="); ok {
			health = v
		}
	}
	srv := &http.Server{Addr: health, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "ok")
	})}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() { <-sig; _ = srv.Close() }()
	fmt.Println("fake manager serving", health, os.Args[1:])
	_ = srv.ListenAndServe()
	os.Exit(0)
}

func newRunner(t *testing.T) (*Runner, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	out := &bytes.Buffer{}
	r := &Runner{StateDir: filepath.Join(dir, "state"), Kubeconfig: kc, Out: out, StopTimeout: 10 * time.Second}
	return r, out
}

func stopAll(t *testing.T, r *Runner, names ...string) {
	t.Cleanup(func() {
		for _, n := range names {
			_ = r.Stop(n)
		}
	})
}

func TestUp_StartsEachManagerWaitsForReadyzAndLeavesItAloneNextTime(t *testing.T) {
	t.Setenv("CAPSTAN_FAKE_MANAGER", "serve")
	r, out := newRunner(t)
	ms := []Manager{{Name: "core", Binary: os.Args[0]}, {Name: "bootstrap-kubeadm", Binary: os.Args[0], Args: []string{"--x=1"}}}
	stopAll(t, r, "core", "bootstrap-kubeadm")

	procs, err := r.Up(context.Background(), ms, 30*time.Second)
	require.NoError(t, err, out.String())
	require.Len(t, procs, 2)
	require.NotEqual(t, procs[0].HealthAddr, procs[1].HealthAddr, "each manager has its own ports")
	for _, p := range procs {
		pid, err := os.ReadFile(filepath.Join(r.StateDir, p.Name+".pid"))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("%d\n", p.PID), string(pid))
		require.True(t, strings.HasPrefix(p.HealthAddr, "127.0.0.1:"), p.HealthAddr)
		log, err := os.ReadFile(filepath.Join(r.StateDir, p.Name+".log"))
		require.NoError(t, err)
		require.Contains(t, string(log), "--kubeconfig="+r.Kubeconfig)
		require.Contains(t, string(log), "fake manager serving "+p.HealthAddr)
		// The conversion webhook listens on its own loopback port, which the core puts in its CRDs.
		require.True(t, strings.HasPrefix(p.WebhookAddr, "127.0.0.1:"), p.WebhookAddr)
		require.Contains(t, string(log), "--webhook-bind-address="+p.WebhookAddr)
	}
	require.Contains(t, out.String(), "core: ready (pid ")

	out.Reset()
	again, err := r.Up(context.Background(), ms, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, procs, again, "the same processes are kept")
	require.Contains(t, out.String(), "core: already running")

	ms[1].Args = []string{"--x=2"}
	out.Reset()
	changed, err := r.Up(context.Background(), ms, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, procs[0].PID, changed[0].PID)
	require.NotEqual(t, procs[1].PID, changed[1].PID, "a manager whose flags changed is restarted")
	require.Contains(t, out.String(), "bootstrap-kubeadm: binary, kubeconfig or flags changed since it started: restarting it")
	require.False(t, alive(procs[1]), "the old process is gone")

	require.NoError(t, r.Stop("core"))
	require.False(t, alive(changed[0]))
	_, running := r.Running("core")
	require.False(t, running)
	require.NoFileExists(t, filepath.Join(r.StateDir, "core.pid"))
	require.FileExists(t, filepath.Join(r.StateDir, "core.log"), "the log is kept")
}

func TestUp_MissingBinarySaysToBuildTheManagers(t *testing.T) {
	r, _ := newRunner(t)
	_, err := r.Up(context.Background(), []Manager{{Name: "core", Binary: filepath.Join(t.TempDir(), "bin", "core")}}, time.Second)
	require.ErrorContains(t, err, "manager binaries not found")
	require.ErrorContains(t, err, "build them with 'make managers' (or pass --bin-dir)")
}

func TestUp_ManagerThatExitsQuotesTheEndOfItsLog(t *testing.T) {
	t.Setenv("CAPSTAN_FAKE_MANAGER", "exit")
	r, _ := newRunner(t)
	stopAll(t, r, "core")
	_, err := r.Up(context.Background(), []Manager{{Name: "core", Binary: os.Args[0]}}, 30*time.Second)
	require.ErrorContains(t, err, "exited before it was ready")
	require.ErrorContains(t, err, "fake manager: cannot reach the API server")
}

// A recorded PID that now runs another program (the manager died and the PID was reused)
// is neither reported running nor signalled.
func TestStop_NeverSignalsAPIDThatRunsAnotherProgram(t *testing.T) {
	r, _ := newRunner(t)
	other := exec.Command("sleep", "60")
	require.NoError(t, other.Start())
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	require.NoError(t, os.MkdirAll(r.StateDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(r.StateDir, "core.json"),
		[]byte(fmt.Sprintf(`{"name":"core","pid":%d,"binary":"/nonexistent/bin/core"}`, other.Process.Pid)), 0o644))

	_, running := r.Running("core")
	require.False(t, running)
	require.NoError(t, r.Stop("core"))
	require.NoError(t, other.Process.Signal(syscall.Signal(0)), "the other program still runs")
	require.NoFileExists(t, filepath.Join(r.StateDir, "core.json"))
}

// A manager with its own kubeconfig is started with it, and a new credential in that file
// (init --dev re-issued the token) restarts only that manager; logs go to LogDir.
func TestUp_PerManagerKubeconfigAndLogDir(t *testing.T) {
	t.Setenv("CAPSTAN_FAKE_MANAGER", "serve")
	r, out := newRunner(t)
	r.LogDir = filepath.Join(t.TempDir(), "logs")
	own := filepath.Join(t.TempDir(), "core.kubeconfig")
	require.NoError(t, os.WriteFile(own, []byte("token: one\n"), 0o600))
	ms := []Manager{{Name: "core", Binary: os.Args[0], Kubeconfig: own}, {Name: "bootstrap-kubeadm", Binary: os.Args[0]}}
	stopAll(t, r, "core", "bootstrap-kubeadm")

	procs, err := r.Up(context.Background(), ms, 30*time.Second)
	require.NoError(t, err, out.String())
	coreLog, err := os.ReadFile(filepath.Join(r.LogDir, "core.log"))
	require.NoError(t, err)
	require.Contains(t, string(coreLog), "--kubeconfig="+own)
	bootLog, err := os.ReadFile(filepath.Join(r.LogDir, "bootstrap-kubeadm.log"))
	require.NoError(t, err)
	require.Contains(t, string(bootLog), "--kubeconfig="+r.Kubeconfig)
	require.NoFileExists(t, filepath.Join(r.StateDir, "core.log"), "logs live in LogDir")

	require.NoError(t, os.WriteFile(own, []byte("token: two\n"), 0o600))
	again, err := r.Up(context.Background(), ms, 30*time.Second)
	require.NoError(t, err, out.String())
	require.NotEqual(t, procs[0].PID, again[0].PID, "a new credential restarts the manager")
	require.Equal(t, procs[1].PID, again[1].PID, "the other manager is kept")
}

// TestWebhookAddr_IsKnownBeforeTheStartAndKeptAcrossARestart: init --dev renders the address
// into the CRDs before Up, so Up must listen exactly there, and a restarted manager (new
// binary or flags) must come back on the address the CRDs already name.
func TestWebhookAddr_IsKnownBeforeTheStartAndKeptAcrossARestart(t *testing.T) {
	t.Setenv("CAPSTAN_FAKE_MANAGER", "serve")
	r, out := newRunner(t)
	stopAll(t, r, "core")
	addr, err := r.WebhookAddr("core")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(addr, "127.0.0.1:"), addr)

	m := Manager{Name: "core", Binary: os.Args[0], WebhookAddr: addr}
	procs, err := r.Up(context.Background(), []Manager{m}, 30*time.Second)
	require.NoError(t, err, out.String())
	require.Equal(t, addr, procs[0].WebhookAddr)

	again, err := r.WebhookAddr("core")
	require.NoError(t, err)
	require.Equal(t, addr, again, "a running manager keeps its address")
	m.WebhookAddr, m.Args = again, []string{"--changed"}
	restarted, err := r.Up(context.Background(), []Manager{m}, 30*time.Second)
	require.NoError(t, err, out.String())
	require.NotEqual(t, procs[0].PID, restarted[0].PID)
	require.Equal(t, addr, restarted[0].WebhookAddr, "the restarted manager listens where the CRDs point")
}
