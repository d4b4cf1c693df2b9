package ctltest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"capstan.dev/contracts/envtest"
)

// SyncBuffer is a bytes.Buffer safe to read while a command writes to it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Run executes capstanctl in-process through execute (cmd.Execute, passed in because the cmd
// package's own tests use this too) and returns what it printed and its exit code. KUBECONFIG
// points nowhere, so only an explicit --kubeconfig reaches a cluster.
func Run(t *testing.T, execute func(ctx context.Context, args []string, stdout, stderr io.Writer) int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	var out, errOut SyncBuffer
	code = execute(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// Running is a capstanctl command Start runs in the background.
type Running struct {
	Stdout, Stderr SyncBuffer
	done           chan int
}

// Start executes capstanctl in-process as Run does, but in the background, so that a test can
// write what a controller would while the command waits for it.
func Start(t *testing.T, execute func(ctx context.Context, args []string, stdout, stderr io.Writer) int, args ...string) *Running {
	t.Helper()
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	r := &Running{done: make(chan int, 1)}
	go func() { r.done <- execute(context.Background(), args, &r.Stdout, &r.Stderr) }()
	return r
}

// WaitOutput waits until the command has printed want.
func (r *Running) WaitOutput(t *testing.T, want string) {
	t.Helper()
	envtest.WaitFor(t, 30*time.Second, "output "+want, func() (bool, error) {
		return strings.Contains(r.Stdout.String(), want), nil
	})
}

// Wait returns the command's exit code, failing the test when it has not returned within timeout.
func (r *Running) Wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case code := <-r.done:
		return code
	case <-time.After(timeout):
		t.Fatalf("the command did not return within %s; it printed:\n%s\n%s", timeout, r.Stdout.String(), r.Stderr.String())
		return 0
	}
}

// KubeconfigFile writes env's kubeconfig into a file of the test's, for --kubeconfig.
func KubeconfigFile(t *testing.T, env *envtest.Environment) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, env.KubeConfig, 0o600); err != nil {
		t.Fatalf("writing the envtest kubeconfig: %v", err)
	}
	return path
}
