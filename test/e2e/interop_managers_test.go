//go:build e2e

package e2e

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/wait"

	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/envtest"
)

// startUpstreamManager runs one of upstream's managers against the management cluster until the
// test ends: leader election off (one process), its probes, diagnostics and webhook server on
// free loopback ports, the webhook server on a self-signed certificate (upstream's managers
// refuse to start without one; nothing calls it, as upstream's webhook configurations are not
// installed), then extra. It waits until the manager's /readyz answers.
func (s *suite) startUpstreamManager(name, bin string, extra ...string) {
	s.t.Helper()
	health := envtest.FreeLoopbackAddr(s.t)
	_, webhookPort, err := net.SplitHostPort(envtest.FreeLoopbackAddr(s.t))
	require.NoError(s.t, err)
	args := []string{
		"--kubeconfig=" + s.mgmtKubeconfig(), "--leader-elect=false", "--health-addr=" + health,
		"--diagnostics-address=" + envtest.FreeLoopbackAddr(s.t), "--insecure-diagnostics",
		"--webhook-port=" + webhookPort, "--webhook-cert-dir=" + s.webhookCertDir(),
	}
	args = append(args, extra...)
	logPath := s.interopLog(name)
	log, err := os.Create(logPath)
	require.NoError(s.t, err)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(s.t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); _ = log.Close() }()
	s.t.Cleanup(func() { stopProcess(cmd, exited) })
	s.t.Logf("upstream %s manager: pid %d, log %s", name, cmd.Process.Pid, logPath)

	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
		select {
		case err := <-exited:
			exited <- err
			return false, err
		default:
		}
		resp, err := http.Get("http://" + health + "/readyz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	require.NoError(s.t, err, "upstream %s manager not ready (log: %s)", name, logPath)
}

// stopProcess ends a manager as its Deployment would (SIGTERM, then SIGKILL after 30 s).
func stopProcess(cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// webhookCertDir writes a self-signed serving certificate for 127.0.0.1 as controller-runtime's
// webhook server reads it (tls.crt, tls.key).
func (s *suite) webhookCertDir() string {
	dir := s.t.TempDir()
	require.NoError(s.t, conversionwebhook.WriteSelfSigned(dir, []string{"127.0.0.1"}, 24*time.Hour))
	return dir
}
