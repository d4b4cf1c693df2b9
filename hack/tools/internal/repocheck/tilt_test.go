package repocheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const repoRoot = "../../../.."

func TestTiltProviderJSON_NamesExistingPathsAndManagerImages(t *testing.T) {
	ps, err := LoadTiltProviders(repoRoot)
	require.NoError(t, err)
	var contexts []string
	for _, p := range ps {
		require.NoError(t, ValidateTiltProvider(repoRoot, p))
		contexts = append(contexts, p.Config.Context)
	}
	require.ElementsMatch(t, []string{"core", "bootstrap-kubeadm", "infrastructure-docker"}, contexts)
}

func TestValidateTiltProvider_RejectsMissingPathsAndWrongImage(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "prov", "config", "manager"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "prov", "main.go"), []byte("package main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "prov", "config", "manager", "manager.yaml"), []byte(`
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: manager
        image: example/real:dev
`), 0o644))
	var p TiltProvider
	p.Name, p.Config.Context, p.Config.Image, p.Config.Label = "prov", "prov", "example/other", "X"
	p.Config.LiveReloadDeps = []string{"main.go", "internal"}

	err := ValidateTiltProvider(root, p)
	require.ErrorContains(t, err, "path internal (relative to context prov) does not exist")
	require.ErrorContains(t, err, "config.image example/other differs from the kustomize manager image example/real:dev")

	p.Config.Image = "example/real"
	p.Config.LiveReloadDeps = []string{"main.go"}
	require.NoError(t, ValidateTiltProvider(root, p))
}
