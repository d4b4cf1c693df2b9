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

// kustomize matches an images: entry on the name without tag and digest, also when the
// reference has both, and keeps a registry port in the name.
func TestApplyImages_MatchesTheNameWithoutTagOrDigest(t *testing.T) {
	entries := []kustomizeImage{{Name: "localhost:5000/a", NewTag: "v2"}, {Name: "b", Digest: "sha256:new"}}
	for ref, want := range map[string]string{
		"localhost:5000/a:v1@sha256:old": "localhost:5000/a:v2",
		"localhost:5000/a":               "localhost:5000/a:v2",
		"b:v1":                           "b@sha256:new",
		"c:v1":                           "c:v1",
	} {
		require.Equal(t, want, applyImages(ref, entries), ref)
	}
}
