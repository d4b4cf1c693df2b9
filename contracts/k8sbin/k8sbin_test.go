package k8sbin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDir_PrefersKubebuilderAssetsThenCache(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "")
	t.Setenv("CAPSTAN_CACHE", "/tmp/capstan-cache")
	require.Equal(t, filepath.Join("/tmp/capstan-cache", "k8s", KubernetesVersion, "bin"), Dir())

	t.Setenv("KUBEBUILDER_ASSETS", "/opt/assets")
	require.Equal(t, "/opt/assets", Dir())
}

func TestPath_MissingBinaryNamesMakeTarget(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", t.TempDir())
	_, err := Path("kube-apiserver")
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrMissing))
	require.Contains(t, err.Error(), "make k8s-binaries")
	require.Contains(t, err.Error(), "kube-apiserver")
}

func TestPath_NonExecutableIsRejected(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEBUILDER_ASSETS", dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "etcd"), []byte("x"), 0o644))
	_, err := Path("etcd")
	require.ErrorIs(t, err, ErrMissing)
	require.Contains(t, err.Error(), "not an executable")
}

func TestRequire_ReportsEveryMissingBinary(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEBUILDER_ASSETS", dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "etcd"), []byte("#!/bin/sh\n"), 0o755))
	paths, err := Require("etcd", "kube-apiserver", "kubectl")
	require.Error(t, err)
	require.Contains(t, err.Error(), "kube-apiserver")
	require.Contains(t, err.Error(), "kubectl")
	require.NotContains(t, err.Error(), "etcd not found")
	require.Equal(t, filepath.Join(dir, "etcd"), paths["etcd"])
}
