package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// coreManager is the core manager binary under test, running as UserCore.
type coreManager struct {
	proc        *process
	healthAddr  string
	metricsAddr string // "" unless profiling
}

// buildCore builds Capstan's core manager into dir; the benchmark runs inside the
// repository's Go workspace, which resolves capstan.dev/core.
func buildCore(dir string) (string, error) {
	bin := filepath.Join(dir, "core")
	out, err := exec.Command("go", "build", "-o", bin, "capstan.dev/core").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the core manager (set CORE_MANAGER to use a binary): %v: %s", err, out)
	}
	return bin, nil
}

// startCore runs the core manager and waits for its /readyz. The flags are the ones
// upstream Cluster API's manager shares with ours (--kubeconfig, --health-addr),
// then defaults that keep leader election out of the counted writes, then extra,
// which may override them.
func startCore(bin string, p *plane, dir string, profiling bool, extra []string) (*coreManager, error) {
	health, err := freeAddr()
	if err != nil {
		return nil, err
	}
	c := &coreManager{healthAddr: health}
	args := []string{"--kubeconfig=" + p.kubeconfigs[UserCore], "--health-addr=" + health, "--leader-elect=false", "--metrics-bind-address=0"}
	if profiling {
		if c.metricsAddr, err = freeAddr(); err != nil {
			return nil, err
		}
		args = append(args, "--metrics-bind-address="+c.metricsAddr, "--profiling")
	}
	logPath := filepath.Join(dir, fmt.Sprintf("core-%s.log", time.Now().Format("150405")))
	if c.proc, err = startProcess(bin, append(args, extra...), logPath); err != nil {
		return nil, err
	}
	if err := c.waitReady(60 * time.Second); err != nil {
		return nil, fmt.Errorf("%w (log: %s)", err, logPath)
	}
	return c, nil
}

func (c *coreManager) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if done, err := c.proc.exited(); done {
			return fmt.Errorf("the core manager exited before it was ready: %v", err)
		}
		resp, err := http.Get("http://" + c.healthAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the core manager's /readyz on %s did not answer 200 within %s", c.healthAddr, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *coreManager) usage() (usage, error) {
	if done, err := c.proc.exited(); done {
		return usage{}, fmt.Errorf("the core manager exited: %v (log: %s)", err, c.proc.logPath)
	}
	return readUsage(c.proc.pid())
}

// saveProfile fetches a pprof profile (e.g. "heap", or "profile?seconds=30" for
// CPU) into path; it needs --profiling.
func (c *coreManager) saveProfile(ctx context.Context, profile, path string) error {
	if c.metricsAddr == "" {
		return fmt.Errorf("profiling is off")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.metricsAddr+"/debug/pprof/"+profile, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
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
