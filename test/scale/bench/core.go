package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"capstan.dev/contracts/envtest"
)

// coreManager is a manager binary under test (the core, or in scenario 6 the
// bootstrap or docker manager), running as a user of its own.
type coreManager struct {
	proc        *process
	healthAddr  string
	metricsAddr string // /metrics, and /debug/pprof/ when profiling
}

// buildCore builds Capstan's core manager into dir; the benchmark runs inside the
// repository's Go workspace, which resolves capstan.dev/core.
func buildCore(dir string) (string, error) { return buildManager(dir, "capstan.dev/core", "core") }

// buildManager builds the manager of module pkg into dir/name, as every binary is built (static,
// -trimpath), so it reuses the compiled dependencies of make managers and the tests.
func buildManager(dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	out, err := envtest.StaticBuild(bin, pkg).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building %s (for the core, set CORE_MANAGER to use a binary): %v: %s", pkg, err, out)
	}
	return bin, nil
}

// startCore runs the core manager and waits for its /readyz. The flags are the ones
// upstream Cluster API's manager shares with ours (--kubeconfig, --health-addr,
// --diagnostics-address with --insecure-diagnostics),
// then defaults that keep leader election out of the counted writes, then extra,
// which may override them.
func startCore(bin string, p *plane, dir string, profiling bool, extra []string) (*coreManager, error) {
	return startManager("core", bin, p.kubeconfigs[UserCore], dir, profiling, extra, nil)
}

// startManager runs a manager binary as the user of kubeconfig, with env added to its
// environment, and waits for its /readyz.
func startManager(name, bin, kubeconfig, dir string, profiling bool, extra, env []string) (*coreManager, error) {
	health, err := freeAddr()
	if err != nil {
		return nil, err
	}
	c := &coreManager{healthAddr: health}
	// The metrics endpoint is always on: scenario 4 reads the goroutine count from it.
	if c.metricsAddr, err = freeAddr(); err != nil {
		return nil, err
	}
	args := []string{"--kubeconfig=" + kubeconfig, "--health-addr=" + health, "--leader-elect=false",
		"--diagnostics-address=" + c.metricsAddr, "--insecure-diagnostics"}
	if profiling {
		args = append(args, "--profiling")
	}
	logPath := filepath.Join(dir, fmt.Sprintf("%s-%s.log", name, time.Now().Format("150405")))
	if c.proc, err = startProcess(bin, append(args, extra...), env, logPath); err != nil {
		return nil, err
	}
	if err := c.waitReady(60 * time.Second); err != nil {
		return nil, fmt.Errorf("%s: %w (log: %s)", name, err, logPath)
	}
	return c, nil
}

func (c *coreManager) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if done, err := c.proc.exited(); done {
			return fmt.Errorf("the manager exited before it was ready: %v", err)
		}
		resp, err := http.Get("http://" + c.healthAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the manager's /readyz on %s did not answer 200 within %s", c.healthAddr, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *coreManager) usage() (usage, error) {
	if done, err := c.proc.exited(); done {
		return usage{}, fmt.Errorf("the manager exited: %v (log: %s)", err, c.proc.logPath)
	}
	return readUsage(c.proc.pid())
}

// goroutines reads go_goroutines from the core's metrics endpoint.
func (c *coreManager) goroutines(ctx context.Context) (int, error) {
	families, err := c.scrape(ctx)
	if err != nil {
		return 0, err
	}
	if metrics := families["go_goroutines"].GetMetric(); len(metrics) > 0 {
		return int(metrics[0].GetGauge().GetValue()), nil
	}
	return 0, fmt.Errorf("no go_goroutines on http://%s/metrics", c.metricsAddr)
}

// saveProfile fetches a pprof profile (e.g. "heap", or "profile?seconds=30" for
// CPU) into path; it needs --profiling.
func (c *coreManager) saveProfile(ctx context.Context, profile, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.metricsAddr+"/debug/pprof/"+profile, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return writeProfile(resp, profile, path)
}

// writeProfile saves the body of a pprof response into path.
func writeProfile(resp *http.Response, profile, path string) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /debug/pprof/%s: %s", profile, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}
