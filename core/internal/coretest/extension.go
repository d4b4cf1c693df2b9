package coretest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
)

var (
	extensionOnce   sync.Once
	extensionBinary string
	extensionErr    error
)

// TestExtension is the test Runtime Extension (capstan.dev/test/extension) running as a process
// on a loopback port, as a user runs it, with its handlers registered in Runtime.
type TestExtension struct {
	// Name is its ExtensionConfig's; handler full names end in "."+Name.
	Name string
	// Runtime calls it: its registry holds the extension's discovered handlers, limited to one
	// namespace (so the objects other tests leave behind are not patched).
	Runtime *runtimeclient.Client
	url     string
	client  *http.Client
}

// RunTestExtension builds the test extension once per package and runs it; it creates the
// cluster-scoped ExtensionConfig name with its URL and writes its CA there (deleted, and the
// process ended, with the test). Nothing registers its handlers: a test running the
// ExtensionConfig controller lets it discover them.
func RunTestExtension(t *testing.T, env *envtest.Environment, name string) *TestExtension {
	t.Helper()
	extensionOnce.Do(func() {
		dir, err := os.MkdirTemp("", "capstan-test-extension-")
		if err != nil {
			extensionErr = err
			return
		}
		extensionBinary = filepath.Join(dir, "extension")
		if out, err := envtest.StaticBuild(extensionBinary, "capstan.dev/test/extension").CombinedOutput(); err != nil {
			extensionErr = fmt.Errorf("building the test extension: %v\n%s", err, out)
		}
	})
	require.NoError(t, extensionErr)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, env.KubeConfig, 0o600))
	addr := envtest.FreeLoopbackAddr(t)
	cmd := exec.Command(extensionBinary, "--listen", addr, "--extension-config", name, "--kubeconfig", kubeconfig)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("test extension output:\n%s", out.String())
	})
	ext := &runtimev1.ExtensionConfig{}
	envtest.WaitFor(t, time.Minute, "the test extension to write its CA into ExtensionConfig "+name, func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, ext); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return len(ext.Spec.ClientConfig.CABundle) > 0 && strings.Contains(out.String(), "Serving"), nil
	})
	// Cluster-scoped: gone with the test, so that no later test of the package finds it.
	t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), ext.DeepCopy())) })
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(ext.Spec.ClientConfig.CABundle))
	return &TestExtension{Name: name, url: "https://" + addr,
		client: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}}
}

// StartTestExtension runs the test extension (RunTestExtension), discovers its handlers and
// registers them (in its status, and in Runtime for namespace ns only; every namespace when ns
// is "").
func StartTestExtension(t *testing.T, env *envtest.Environment, name, ns string) *TestExtension {
	t.Helper()
	e := RunTestExtension(t, env, name)
	ext := &runtimev1.ExtensionConfig{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Name: name}, ext))
	rc := runtimeclient.New(registry.New(), env.Client)
	handlers, err := rc.Discover(t.Context(), ext, runtimeclient.DefaultDiscoveryTimeout)
	require.NoError(t, err)
	// Written as the ExtensionConfig controller writes them, for whoever registers from the API
	// (capstanctl topology plan).
	envtest.UpdateStatus(t, env.Client, ext, func() { ext.Status.Handlers = handlers })
	if ns != "" {
		ext.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	}
	rc.Registry.Register(ext)
	e.Runtime = rc
	return e
}

// Control sends a control request to the extension (see capstan.dev/test/extension/server).
func (e *TestExtension) Control(t *testing.T, method, path, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.url+path, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := e.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, path, msg)
}

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
