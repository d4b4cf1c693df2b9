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
	require.NoError(t, os.MkdirAll(filepath.Join(root, "prov", "config", "default"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "prov", "config", "default", "kustomization.yaml"),
		[]byte("resources: [../manager]\n"), 0o644))
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

func TestKustomizedManagerImage_AppliesTheImagesTransformerOfManagerThenDefault(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		path := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	write("config/manager/manager.yaml", `
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: manager
        image: example/base:dev
`)
	img, err := KustomizedManagerImage(root)
	require.NoError(t, err)
	require.Equal(t, "example/base:dev", img, "no kustomization: the manifest's image")

	write("config/manager/kustomization.yaml", `
resources: [manager.yaml]
images:
- name: example/other
  newName: wrong/one
- name: example/base
  newName: example/renamed
`)
	img, err = KustomizedManagerImage(root)
	require.NoError(t, err)
	require.Equal(t, "example/renamed:dev", img, "newName alone keeps the tag")

	write("config/default/kustomization.yaml", `
resources: [../manager]
images:
- name: example/renamed
  newTag: v1.2.3
`)
	img, err = KustomizedManagerImage(root)
	require.NoError(t, err)
	require.Equal(t, "example/renamed:v1.2.3", img, "config/default applies after config/manager")
}

func TestSplitImage_KeepsRegistryPortsInTheName(t *testing.T) {
	for ref, want := range map[string][2]string{
		"capstan/core-manager:dev":          {"capstan/core-manager", ":dev"},
		"capstan/core-manager":              {"capstan/core-manager", ""},
		"localhost:5000/capstan/core":       {"localhost:5000/capstan/core", ""},
		"localhost:5000/capstan/core:v1":    {"localhost:5000/capstan/core", ":v1"},
		"capstan/core@sha256:0123456789abc": {"capstan/core", "@sha256:0123456789abc"},
	} {
		name, suffix := splitImage(ref)
		require.Equal(t, want, [2]string{name, suffix}, ref)
	}
}
