package ctltest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

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

// KubeconfigFile writes env's kubeconfig into a file of the test's, for --kubeconfig.
func KubeconfigFile(t *testing.T, env *envtest.Environment) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, env.KubeConfig, 0o600); err != nil {
		t.Fatalf("writing the envtest kubeconfig: %v", err)
	}
	return path
}
