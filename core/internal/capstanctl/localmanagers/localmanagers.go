// Package localmanagers runs provider manager binaries as local background processes
// against a management cluster, for `capstanctl init --dev` (which `make run`, `make e2e`
// and `make stop` use). Each manager gets its own loopback ports for metrics, probes and its
// conversion webhook, and may have its own kubeconfig; its PID and addresses live in a state directory
// (<dir>/<name>.pid, <name>.json) and its log in a log directory (<name>.log), so a later run
// finds it: a manager still running the same binary against the same kubeconfig with the
// same flags is left alone, any other is restarted. Processes are only ever signalled by the
// PID recorded here, after checking that the PID still runs the recorded binary. The package
// applies nothing to the cluster.
package localmanagers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Manager is one manager binary to run.
type Manager struct {
	// Name names the state files and log lines: the provider's module (core, bootstrap-kubeadm, ...).
	Name string
	// Binary is the path of the manager binary.
	Binary string
	// Args are flags added to the ones Runner sets (--kubeconfig and the three addresses).
	Args []string
	// Kubeconfig is the manager's own kubeconfig (init --dev gives each its ServiceAccount's
	// token); empty means the Runner's.
	Kubeconfig string
	// WebhookAddr is the loopback host:port its conversion webhook listens on (from
	// Runner.WebhookAddr, so that the CRDs can name it before the manager starts); empty means
	// a free port chosen at start.
	WebhookAddr string
}

func (r *Runner) kubeconfigOf(m Manager) string {
	if m.Kubeconfig != "" {
		return m.Kubeconfig
	}
	return r.Kubeconfig
}

// Process is a running manager as recorded in the state directory.
type Process struct {
	Name        string `json:"name"`
	PID         int    `json:"pid"`
	Binary      string `json:"binary"`
	HealthAddr  string `json:"healthAddr"`
	MetricsAddr string `json:"metricsAddr"`
	WebhookAddr string `json:"webhookAddr,omitempty"`
	Log         string `json:"log"`
	// Sum identifies what the process runs: the binary's content, the kubeconfig and the flags.
	Sum string `json:"sum"`
}

// Runner starts and stops managers recorded in StateDir.
type Runner struct {
	// StateDir holds the PID and state files.
	StateDir string
	// LogDir holds the managers' logs (<name>.log); StateDir when empty.
	LogDir string
	// Kubeconfig is the kubeconfig file a manager without its own is given.
	Kubeconfig string
	// Out receives a line per manager started, kept or stopped; nil discards them.
	Out io.Writer
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL; 30s when zero.
	StopTimeout time.Duration
}

func (r *Runner) out() io.Writer {
	if r.Out == nil {
		return io.Discard
	}
	return r.Out
}

// CheckBinaries fails, naming the make target that builds them, when a binary is missing.
func CheckBinaries(ms []Manager) error {
	var missing []string
	for _, m := range ms {
		if st, err := os.Stat(m.Binary); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, m.Binary)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("manager binaries not found: %s: build them with 'make managers' (or pass --bin-dir)", strings.Join(missing, ", "))
	}
	return nil
}

// Up starts every manager that is not already running as asked, then waits up to timeout
// for each to answer /readyz. It returns the running processes, in the order of ms.
func (r *Runner) Up(ctx context.Context, ms []Manager, timeout time.Duration) ([]Process, error) {
	if err := CheckBinaries(ms); err != nil {
		return nil, err
	}
	for _, dir := range []string{r.StateDir, r.logDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the managers' directory: %w", err)
		}
	}
	procs := make([]Process, 0, len(ms))
	for _, m := range ms {
		kubeconfig, err := os.ReadFile(r.kubeconfigOf(m))
		if err != nil {
			return procs, fmt.Errorf("reading the kubeconfig of %s: %w", m.Name, err)
		}
		sum, err := sumOf(m, kubeconfig)
		if err != nil {
			return procs, err
		}
		if p, ok := r.Running(m.Name); ok {
			if p.Sum == sum {
				fmt.Fprintf(r.out(), "%s: already running (pid %d, log %s)\n", m.Name, p.PID, p.Log)
				procs = append(procs, p)
				continue
			}
			fmt.Fprintf(r.out(), "%s: binary, kubeconfig or flags changed since it started: restarting it\n", m.Name)
			if err := r.Stop(m.Name); err != nil {
				return procs, err
			}
		}
		p, err := r.start(m, sum)
		if err != nil {
			return procs, err
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		if err := waitReady(ctx, p, timeout); err != nil {
			return procs, err
		}
		fmt.Fprintf(r.out(), "%s: ready (pid %d, probes http://%s/readyz, log %s)\n", p.Name, p.PID, p.HealthAddr, p.Log)
	}
	return procs, nil
}

func sumOf(m Manager, kubeconfig []byte) (string, error) {
	f, err := os.Open(m.Binary)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", m.Binary, err)
	}
	h.Write(kubeconfig)
	h.Write([]byte(strings.Join(m.Args, "\x00")))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (r *Runner) path(name, ext string) string { return filepath.Join(r.StateDir, name+ext) }

func (r *Runner) logDir() string {
	if r.LogDir == "" {
		return r.StateDir
	}
	return r.LogDir
}

// start launches m in its own session (a Ctrl-C in the terminal that ran capstanctl does
// not reach it), with its output appended to its log, and records it.
func (r *Runner) start(m Manager, sum string) (Process, error) {
	bin, err := filepath.Abs(m.Binary)
	if err != nil {
		return Process{}, err
	}
	kubeconfig, err := filepath.Abs(r.kubeconfigOf(m))
	if err != nil {
		return Process{}, err
	}
	health, err := freeLoopbackAddr()
	if err != nil {
		return Process{}, err
	}
	metrics, err := freeLoopbackAddr()
	if err != nil {
		return Process{}, err
	}
	// A provider that serves older API versions points its CRDs' conversion webhook at this
	// address (https://127.0.0.1:<port>/convert); the others accept the flag and ignore it.
	webhook := m.WebhookAddr
	if webhook == "" {
		if webhook, err = freeLoopbackAddr(); err != nil {
			return Process{}, err
		}
	}
	logPath := filepath.Join(r.logDir(), m.Name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return Process{}, fmt.Errorf("opening %s: %w", logPath, err)
	}
	defer logFile.Close()

	args := append([]string{"--kubeconfig=" + kubeconfig, "--diagnostics-address=" + metrics, "--insecure-diagnostics", "--health-addr=" + health,
		"--webhook-bind-address=" + webhook}, m.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// POD_NAMESPACE would override the Lease namespace the manager's flags name.
	cmd.Env = withoutEnv(os.Environ(), "POD_NAMESPACE", "KUBECONFIG")
	fmt.Fprintf(logFile, "---- %s capstanctl init --dev: %s %s\n", time.Now().UTC().Format(time.RFC3339), bin, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return Process{}, fmt.Errorf("starting %s: %w", bin, err)
	}
	// Reap the process if it exits while this one still runs (it outlives a CLI run).
	go func() { _ = cmd.Wait() }()

	p := Process{Name: m.Name, PID: cmd.Process.Pid, Binary: bin, HealthAddr: health, MetricsAddr: metrics, WebhookAddr: webhook, Log: logPath, Sum: sum}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return p, err
	}
	if err := os.WriteFile(r.path(m.Name, ".json"), append(data, '\n'), 0o644); err != nil {
		return p, fmt.Errorf("recording %s: %w", m.Name, err)
	}
	if err := os.WriteFile(r.path(m.Name, ".pid"), []byte(strconv.Itoa(p.PID)+"\n"), 0o644); err != nil {
		return p, fmt.Errorf("recording %s: %w", m.Name, err)
	}
	fmt.Fprintf(r.out(), "%s: started %s (pid %d)\n", m.Name, bin, p.PID)
	return p, nil
}

func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// WebhookAddr is where the manager name's conversion webhook listens once Up has run: the
// address of the recorded process while it runs (Up keeps it, or restarts it on the same
// address), else a free loopback port. init --dev renders it into the CRDs before Up.
func (r *Runner) WebhookAddr(name string) (string, error) {
	if p, ok := r.Running(name); ok && p.WebhookAddr != "" {
		return p.WebhookAddr, nil
	}
	return freeLoopbackAddr()
}

// Running returns the recorded process of name when its PID still runs the recorded binary.
func (r *Runner) Running(name string) (Process, bool) {
	data, err := os.ReadFile(r.path(name, ".json"))
	if err != nil {
		return Process{}, false
	}
	var p Process
	if json.Unmarshal(data, &p) != nil || p.PID <= 0 {
		return Process{}, false
	}
	return p, alive(p)
}

// alive says whether p.PID is a live process running p.Binary. Where /proc is missing, a
// live PID is taken as the manager.
func alive(p Process) bool {
	if err := syscall.Kill(p.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
	if errors.Is(err, os.ErrNotExist) {
		if _, statErr := os.Stat("/proc/self"); statErr != nil {
			return true
		}
		return false
	}
	if err != nil {
		return false
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	return argv0 == p.Binary
}

// Stop sends SIGTERM to name's recorded PID (if it still runs the recorded binary), waits
// for it to exit (SIGKILL after StopTimeout) and removes its PID and state files; the log stays.
func (r *Runner) Stop(name string) error {
	p, ok := r.Running(name)
	if ok {
		if err := syscall.Kill(p.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stopping %s (pid %d): %w", name, p.PID, err)
		}
		timeout := r.StopTimeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		deadline := time.Now().Add(timeout)
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(p) {
			fmt.Fprintf(r.out(), "%s: pid %d ignored SIGTERM for %s: killing it\n", name, p.PID, timeout)
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		fmt.Fprintf(r.out(), "%s: stopped (pid %d)\n", name, p.PID)
	}
	for _, ext := range []string{".pid", ".json"} {
		if err := os.Remove(r.path(name, ext)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// waitReady polls p's /readyz until it answers 200, p exits, ctx ends or timeout passes;
// the errors quote the end of p's log.
func waitReady(ctx context.Context, p Process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	hc := &http.Client{Timeout: 2 * time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.HealthAddr+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		switch {
		case !alive(p):
			return fmt.Errorf("%s (pid %d) exited before it was ready; end of %s:\n%s", p.Name, p.PID, p.Log, tail(p.Log, 20))
		case time.Now().After(deadline):
			return fmt.Errorf("%s (pid %d) not ready after %s at http://%s/readyz; end of %s:\n%s", p.Name, p.PID, timeout, p.HealthAddr, p.Log, tail(p.Log, 20))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
