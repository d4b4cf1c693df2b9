package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/k8sbin"
	"capstan.dev/contracts/testing/crds"
)

// TestMgmtCommand_UpDownUpKeepsTheCluster drives the command exactly as
// `make mgmt-up` / `make mgmt-down` do, from the repository root.
func TestMgmtCommand_UpDownUpKeepsTheCluster(t *testing.T) {
	if _, err := k8sbin.Require("etcd", "kube-apiserver"); err != nil {
		t.Fatalf("the management plane needs real binaries: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mgmt")
	out, err := envtest.StaticBuild(bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	dir := filepath.Join(t.TempDir(), "mgmt")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--dir", dir}, args...)...)
		cmd.Dir = "../../../.." // repository root, where make runs it
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "mgmt %v: %s", args, out)
		return string(out)
	}
	t.Cleanup(func() { _ = exec.Command(bin, "--dir", dir, "down").Run() })

	require.Contains(t, run("up"), "Management plane ready")
	c := kubeClient(t, filepath.Join(dir, "kubeconfig"))
	ctx := context.Background()
	for _, ns := range []string{"capstan-system", "capstan-kubeadm-bootstrap-system", "capstan-docker-system"} {
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}), "namespace %s", ns)
	}
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default"},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "kept")},
	}
	require.NoError(t, c.Create(ctx, cluster))

	run("down")
	require.Contains(t, run("status"), "not running")
	run("up")

	c = kubeClient(t, filepath.Join(dir, "kubeconfig"))
	got := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cluster), got))
	require.Equal(t, cluster.UID, got.UID)
	run("down")
}

// TestMgmtCommand_ServeRunsInTheForegroundAndStopsOnSIGTERM drives `mgmt serve` the
// way Tilt's serve_cmd does: it stays up, `mgmt ready` probes it, and SIGTERM stops
// every component it started.
func TestMgmtCommand_ServeRunsInTheForegroundAndStopsOnSIGTERM(t *testing.T) {
	if _, err := k8sbin.Require("etcd", "kube-apiserver"); err != nil {
		t.Fatalf("the management plane needs real binaries: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mgmt")
	out, err := envtest.StaticBuild(bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	dir := filepath.Join(t.TempDir(), "mgmt")
	t.Cleanup(func() { _ = exec.Command(bin, "--dir", dir, "down").Run() })
	probe := func(verb string) (string, error) {
		cmd := exec.Command(bin, "--dir", dir, verb)
		cmd.Dir = "../../../.."
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	_, err = probe("ready")
	require.Error(t, err, "ready before the plane was started")

	var log bytes.Buffer
	serve := exec.Command(bin, "--dir", dir, "serve")
	serve.Dir = "../../../.."
	serve.Stdout, serve.Stderr = &log, &log
	require.NoError(t, serve.Start())
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() { _ = serve.Process.Kill() })

	require.Eventually(t, func() bool { _, err := probe("ready"); return err == nil }, 3*time.Minute, time.Second,
		"mgmt ready never succeeded")
	select {
	case err := <-exited:
		t.Fatalf("serve returned while it should stay in the foreground: %v\n%s", err, log.String())
	default:
	}
	status, err := probe("status")
	require.NoError(t, err)
	require.Contains(t, status, "kube-apiserver running")

	require.NoError(t, serve.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, "serve after SIGTERM: %s", log.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not exit after SIGTERM:\n%s", log.String())
	}
	status, err = probe("status")
	require.NoError(t, err)
	require.Contains(t, status, "not running")
	_, err = probe("ready")
	require.Error(t, err)
}

func TestMgmtCommand_UnknownVerbFails(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mgmt")
	out, err := envtest.StaticBuild(bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin, "--dir", t.TempDir(), "sideways").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), `unknown command "sideways": use up, down, status, serve or ready`)
}

func kubeClient(t *testing.T, kubeconfig string) client.Client {
	t.Helper()
	_, err := os.Stat(kubeconfig)
	require.NoError(t, err)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	scheme, err := envtest.DefaultScheme()
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	require.NoError(t, err)
	return c
}
