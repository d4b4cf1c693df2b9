// Package managers proves that each provider's manager binary starts against a real
// API server, takes its leader-election Lease, hands it over on SIGTERM and exits 0.
package managers

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

// TestMain installs every provider's CRDs, as a management cluster has them, so each
// manager's watches start.
func TestMain(m *testing.M) {
	scheme, err := envtest.DefaultSchemeWith(runtimev1.AddToScheme) // ExtensionConfigs (hooks_kill_test.go)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{
		CRDs:              crds.All(),
		CRDDirectoryPaths: []string{"../../bootstrap-kubeadm/config/crd/bases", "../../infrastructure-docker/config/crd/bases"},
		Scheme:            scheme,
	}, &env))
}

// provider is what a user knows about a manager: where its main package is, which
// namespace holds its Lease and what the Lease is called.
type provider struct {
	name, pkg, namespace, lease string
}

var providers = []provider{
	{"core", "capstan.dev/core", "capstan-system", "capstan-core-leader-election"},
	{"bootstrap-kubeadm", "capstan.dev/bootstrap-kubeadm", "capstan-kubeadm-bootstrap-system", "capstan-kubeadm-bootstrap-leader-election"},
	{"infrastructure-docker", "capstan.dev/infrastructure-docker", "capstan-docker-system", "capstan-docker-infrastructure-leader-election"},
}

// managerProcess is one running manager binary.
type managerProcess struct {
	cmd        *exec.Cmd
	healthAddr string
	logPath    string
	done       chan error
}

func buildManager(t *testing.T, p provider) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), p.name)
	out, err := envtest.StaticBuild(bin, p.pkg).CombinedOutput()
	require.NoError(t, err, "building %s: %s", p.pkg, out)
	return bin
}

func kubeconfigFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, env.KubeConfig, 0o600))
	return path
}

func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

// startManager runs bin; extra flags come last, so they override the defaults here.
func startManager(t *testing.T, bin, kubeconfig string, extra ...string) *managerProcess {
	t.Helper()
	mp := &managerProcess{healthAddr: envtest.FreeLoopbackAddr(t), done: make(chan error, 1)}
	mp.cmd = exec.Command(bin, append([]string{
		"--kubeconfig=" + kubeconfig,
		"--diagnostics-address=0",
		"--health-addr=" + mp.healthAddr,
		// Short lease timings keep the failover test quick; the flags exist for this.
		"--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s",
	}, extra...)...)
	logPath := filepath.Join(t.TempDir(), filepath.Base(bin)+".log")
	mp.logPath = logPath
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	mp.cmd.Stdout, mp.cmd.Stderr = logFile, logFile
	require.NoError(t, mp.cmd.Start())
	go func() { mp.done <- mp.cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		if mp.cmd.ProcessState == nil {
			_ = mp.cmd.Process.Kill()
			<-mp.done
		}
		if t.Failed() {
			log, _ := os.ReadFile(logPath)
			t.Logf("%s log:\n%s", filepath.Base(bin), log)
		}
	})
	return mp
}

// stop sends SIGTERM and returns the exit error, failing the test when the process
// does not exit within the deadline.
func (mp *managerProcess) stop(t *testing.T) error {
	t.Helper()
	require.NoError(t, mp.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-mp.done:
		return err
	case <-time.After(45 * time.Second):
		t.Fatalf("manager did not exit within 45s of SIGTERM")
		return nil
	}
}

func holder(p provider) (string, error) {
	lease := &coordinationv1.Lease{}
	if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: p.namespace, Name: p.lease}, lease); err != nil {
		return "", err
	}
	if lease.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *lease.Spec.HolderIdentity, nil
}

func ready(addr string) error {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz answered %s", resp.Status)
	}
	return nil
}

func TestManagers_AcquireLeaseAndExitZeroOnSIGTERM(t *testing.T) {
	kubeconfig := kubeconfigFile(t)
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			ensureNamespace(t, p.namespace)
			mp := startManager(t, buildManager(t, p), kubeconfig)

			var leader string
			envtest.WaitFor(t, 60*time.Second, p.name+" to hold Lease "+p.namespace+"/"+p.lease, func() (bool, error) {
				h, err := holder(p)
				leader = h
				return h != "", err
			})
			envtest.WaitFor(t, 30*time.Second, p.name+" /readyz", func() (bool, error) {
				return true, ready(mp.healthAddr)
			})

			require.NoError(t, mp.stop(t), "exit status after SIGTERM")
			h, err := holder(p)
			require.NoError(t, err)
			require.Empty(t, h, "the Lease is released on shutdown (was held by %s)", leader)
		})
	}
}

func TestManagers_SecondReplicaWaitsThenTakesOver(t *testing.T) {
	p := providers[0]
	ensureNamespace(t, p.namespace)
	kubeconfig := kubeconfigFile(t)
	bin := buildManager(t, p)

	first := startManager(t, bin, kubeconfig)
	var firstID string
	envtest.WaitFor(t, 60*time.Second, "the first replica to lead", func() (bool, error) {
		h, err := holder(p)
		firstID = h
		return h != "", err
	})
	second := startManager(t, bin, kubeconfig)
	envtest.WaitFor(t, 30*time.Second, "the second replica to be ready", func() (bool, error) {
		return true, ready(second.healthAddr)
	})
	// The second replica has had several retry periods (1s) to try: it must not lead.
	h, err := holder(p)
	require.NoError(t, err)
	require.Equal(t, firstID, h, "while the first replica renews, the second one waits")

	require.NoError(t, first.stop(t))
	envtest.WaitFor(t, 30*time.Second, "the second replica to take the Lease over", func() (bool, error) {
		h, err := holder(p)
		return h != "" && h != firstID, err
	})
	require.NoError(t, second.stop(t))
}

// TestManagers_ProfilingServesPprofOnTheInsecureDiagnosticsEndpoint: --profiling adds Go's pprof
// handlers to a plain --insecure-diagnostics endpoint (the benchmarks profile the managers through it);
// without the flag they are not there.
func TestManagers_ProfilingServesPprofOnTheInsecureDiagnosticsEndpoint(t *testing.T) {
	p := providers[0]
	ensureNamespace(t, p.namespace)
	kubeconfig := kubeconfigFile(t)
	bin := buildManager(t, p)
	status := func(url string) (int, error) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return resp.StatusCode, nil
	}
	for _, tc := range []struct {
		flags []string
		want  int
	}{
		{[]string{"--profiling"}, http.StatusOK},
		{nil, http.StatusNotFound},
	} {
		metricsAddr := envtest.FreeLoopbackAddr(t)
		mp := startManager(t, bin, kubeconfig, append([]string{"--leader-elect=false", "--diagnostics-address=" + metricsAddr, "--insecure-diagnostics"}, tc.flags...)...)
		envtest.WaitFor(t, 30*time.Second, "the metrics endpoint", func() (bool, error) {
			code, err := status("http://" + metricsAddr + "/metrics")
			return code == http.StatusOK, err
		})
		code, err := status("http://" + metricsAddr + "/debug/pprof/goroutine?debug=1")
		require.NoError(t, err)
		require.Equal(t, tc.want, code, "GET /debug/pprof/goroutine with flags %v", tc.flags)
		require.NoError(t, mp.stop(t))
	}
}
