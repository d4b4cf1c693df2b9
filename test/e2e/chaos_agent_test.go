//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// managerNames are the local managers `capstanctl init --dev` runs, by the name of their
// state file in .capstan/managers.
var managerNames = []string{"core", "bootstrap-kubeadm", "infrastructure-docker"}

// chaosAgent kills what the managers depend on while a spec runs: a random manager with
// SIGKILL every 5–25 s (restarted a few seconds later, as a kubelet would restart a
// crashed pod), and, at most once each and at a random kill, the management kube-apiserver
// (SIGKILL, then `mgmt up`) and dockerd (SIGTERM, then its own command line again). Every event is
// recorded with its time, so a failure can be read against what was killed when.
type chaosAgent struct {
	t    *testing.T
	repo string
	// restartManagers is the command that starts whichever managers are not running and
	// leaves the others alone (`capstanctl init --dev` with make's flags).
	restartManagers []string
	rng             *rand.Rand

	mu     sync.Mutex
	events []string
	start  time.Time

	cancel context.CancelFunc
	done   chan struct{}
}

// chaosPlan says which rare faults one chaos window includes.
type chaosPlan struct {
	restartAPIServer bool
	restartDockerd   bool
}

func newChaosAgent(t *testing.T, repo string, restart []string, seed uint64) *chaosAgent {
	return &chaosAgent{t: t, repo: repo, restartManagers: restart, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), start: time.Now()}
}

func (a *chaosAgent) record(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	line := fmt.Sprintf("+%s %s", time.Since(a.start).Round(time.Second), fmt.Sprintf(format, args...))
	a.events = append(a.events, line)
	a.t.Logf("chaos: %s", line)
}

// Events is every fault and restart so far, in order.
func (a *chaosAgent) Events() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.events...)
}

// Start begins a chaos window; Stop ends it and makes sure every manager runs again.
func (a *chaosAgent) Start(plan chaosPlan) {
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel, a.done = cancel, make(chan struct{})
	// The rare faults happen at a random one of the first kills, so they land while the
	// cluster is still converging.
	apiAt, dockerdAt := -1, -1
	if plan.restartAPIServer {
		apiAt = 1 + a.rng.IntN(4)
	}
	if plan.restartDockerd {
		dockerdAt = 2 + a.rng.IntN(5)
	}
	go func() {
		defer close(a.done)
		for i := 0; ; i++ {
			if !sleepCtx(ctx, time.Duration(5+a.rng.IntN(21))*time.Second) {
				return
			}
			switch i {
			case apiAt:
				a.restartAPIServer()
			case dockerdAt:
				a.restartDockerd()
			default:
				a.killManager(ctx, managerNames[a.rng.IntN(len(managerNames))])
			}
			a.ensureManagers()
		}
	}()
}

func (a *chaosAgent) Stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	<-a.done
	a.cancel = nil
	a.ensureManagers()
	a.record("chaos window closed; every manager running")
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// managerPID reads the PID `capstanctl init --dev` recorded for a manager.
func (a *chaosAgent) managerPID(name string) (int, error) {
	data, err := os.ReadFile(filepath.Join(a.repo, ".capstan", "managers", name+".json"))
	if err != nil {
		return 0, err
	}
	var p struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return 0, fmt.Errorf("reading the state of manager %s: %w", name, err)
	}
	return p.PID, nil
}

func (a *chaosAgent) killManager(ctx context.Context, name string) {
	pid, err := a.managerPID(name)
	if err != nil || pid == 0 {
		a.record("no PID for manager %s (%v): not killed", name, err)
		return
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		a.record("kill -9 manager %s (pid %d): %v", name, pid, err)
		return
	}
	a.record("kill -9 manager %s (pid %d)", name, pid)
	sleepCtx(ctx, time.Duration(2+a.rng.IntN(4))*time.Second)
}

// ensureManagers starts every manager that is not running (a killed one, or one that exited
// by itself, e.g. after losing its leader lease while the API server was down).
func (a *chaosAgent) ensureManagers() {
	out, err := a.run(a.restartManagers...)
	started := []string{}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "started") || strings.Contains(line, "Started") {
			started = append(started, strings.TrimSpace(line))
		}
	}
	if err != nil {
		a.record("restarting managers failed: %v: %s", err, out)
		return
	}
	if len(started) > 0 {
		a.record("restarted: %s", strings.Join(started, "; "))
	}
}

// restartAPIServer kills the management kube-apiserver and starts it again through the
// plane's own `up`, which starts only what is not running.
func (a *chaosAgent) restartAPIServer() {
	pidFile := filepath.Join(a.repo, ".capstan", "mgmt", "kube-apiserver.pid")
	pid, err := readPIDFile(pidFile)
	if err != nil {
		a.record("no kube-apiserver PID (%v): not restarted", err)
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	a.record("kill -9 management kube-apiserver (pid %d)", pid)
	waitGone(pid, 30*time.Second)
	time.Sleep(3 * time.Second) // down for a few seconds, as a crashed apiserver is
	if out, err := a.run(filepath.Join(a.repo, "bin", "mgmt"), "--dir", filepath.Join(a.repo, ".capstan", "mgmt"), "up"); err != nil {
		a.record("mgmt up failed: %v: %s", err, out)
		return
	}
	a.record("management kube-apiserver started again")
}

// restartDockerd stops the Docker daemon as a service manager would (SIGTERM, waiting for
// it to exit) and starts it again with the command line it ran with, as a service manager
// would: hack/docker-up.sh's default flags would lose a daemon's own (another --data-root
// holds other containers; a cold-cache CI measurement lost its cluster that way).
func (a *chaosAgent) restartDockerd() {
	// Without --live-restore a daemon restart restarts every node container, and a
	// multi-control-plane cluster does not survive new addresses (docs/status.md).
	if out, _ := a.run("docker", "info", "--format", "{{.LiveRestoreEnabled}}"); strings.TrimSpace(out) != "true" {
		a.record("dockerd runs without --live-restore: not restarted")
		a.t.Errorf("dockerd runs without --live-restore (%q): stop it and run 'make docker-up', which starts it with the flag", strings.TrimSpace(out))
		return
	}
	pid, err := readPIDFile("/var/run/docker.pid")
	if err != nil {
		a.record("no dockerd PID (%v): not restarted", err)
		return
	}
	argv, err := commandLine(pid)
	if err != nil {
		a.record("reading dockerd's command line (%v): not restarted", err)
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	a.record("dockerd stopping (SIGTERM pid %d)", pid)
	if !waitGone(pid, 60*time.Second) {
		a.record("dockerd did not exit within 60s")
		return
	}
	if err := startDetached(argv, "/var/log/capstan-dockerd.log"); err != nil {
		a.record("starting %q failed: %v", strings.Join(argv, " "), err)
		return
	}
	if out, err := a.run("bash", filepath.Join(a.repo, "hack", "docker-up.sh")); err != nil { // waits for the engine
		a.record("the engine did not answer after the restart: %v: %s", err, out)
		return
	}
	a.record("dockerd started again: %s", strings.Join(argv, " "))
}

// commandLine is the argv process pid runs with.
func commandLine(pid int) ([]string, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil, err
	}
	argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("process %d has an empty command line", pid)
	}
	return argv, nil
}

// startDetached starts argv in a session of its own (it outlives the test, as docker-up.sh's
// setsid does), its output appended to logPath.
func startDetached(argv []string, logPath string) error {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

func (a *chaosAgent) run(argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = a.repo
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// readPIDFile reads a PID file: a bare number (dockerd) or the management plane's JSON
// record ({"pid": N, "exe": ...}).
func readPIDFile(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var rec struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(data, &rec) == nil && rec.PID != 0 {
		return rec.PID, nil
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// waitGone waits until no process has the PID (a killed child of another process may
// linger as a zombie until reaped: /proc/<pid>/stat then says Z).
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if fields := strings.Fields(string(stat)); len(fields) > 2 && fields[2] == "Z" {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}
