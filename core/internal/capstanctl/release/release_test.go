package release

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
)

// The layout is what clusterctl's local repository reads: <label>/<version>/ with the
// components file, metadata.yaml and (infrastructure) the templates; clusterctl.yaml pointing at
// absolute paths whose last three segments are label/version/file.
func TestWrite_WritesClusterctlsLocalRepositoryLayout(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(context.Background(), dir, "v0.2.0", nil)
	require.NoError(t, err)

	var files []string
	require.NoError(t, filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, path)
		if info.IsDir() {
			if rel == OverridesDir {
				entries, err := os.ReadDir(path)
				require.NoError(t, err)
				require.Empty(t, entries, "the overrides folder isolates the release and stays empty")
			}
			return nil
		}
		files = append(files, rel)
		return nil
	}))
	sort.Strings(files)
	require.Equal(t, []string{
		"bootstrap-kubeadm/v0.2.0/bootstrap-components.yaml",
		"bootstrap-kubeadm/v0.2.0/metadata.yaml",
		"cluster-api/v0.2.0/core-components.yaml",
		"cluster-api/v0.2.0/metadata.yaml",
		"clusterctl.yaml",
		"control-plane-kubeadm/v0.2.0/control-plane-components.yaml",
		"control-plane-kubeadm/v0.2.0/metadata.yaml",
		"infrastructure-docker/v0.2.0/cluster-template-development-mp.yaml",
		"infrastructure-docker/v0.2.0/cluster-template-development.yaml",
		"infrastructure-docker/v0.2.0/cluster-template-machinepool.yaml",
		"infrastructure-docker/v0.2.0/cluster-template.yaml",
		"infrastructure-docker/v0.2.0/infrastructure-components.yaml",
		"infrastructure-docker/v0.2.0/metadata.yaml",
	}, files)

	for _, p := range clusterctl.Providers {
		data, err := os.ReadFile(filepath.Join(dir, p.Label, "v0.2.0", "metadata.yaml"))
		require.NoError(t, err)
		var m clusterctl.Metadata
		require.NoError(t, yaml.UnmarshalStrict(data, &m), p.Label)
		require.Equal(t, "clusterctl.cluster.x-k8s.io/v1alpha3", m.APIVersion)
		require.Equal(t, "Metadata", m.Kind)
		require.Equal(t, []clusterctl.ReleaseSeries{{Major: 0, Minor: 0, Contract: "v1beta2"}, {Major: 0, Minor: 1, Contract: "v1beta2"}, {Major: 0, Minor: 2, Contract: "v1beta2"}}, m.ReleaseSeries)
	}

	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	require.NoError(t, err)
	var cfg Config
	require.NoError(t, yaml.UnmarshalStrict(data, &cfg))
	require.Equal(t, filepath.Join(dir, OverridesDir), cfg.OverridesFolder)
	require.Len(t, cfg.Providers, len(clusterctl.Providers))
	for i, p := range clusterctl.Providers {
		got := cfg.Providers[i]
		require.Equal(t, ConfigProvider{Name: p.Name, Type: p.Type, URL: filepath.Join(dir, p.Label, "v0.2.0", p.File)}, got)
		require.True(t, filepath.IsAbs(got.URL), got.URL)
		require.FileExists(t, got.URL)
	}
}

// Every object of every components file is labelled for the file's provider, and the managers
// run the release's images.
func TestWrite_ComponentsAreLabelledPerProviderAndRunTheReleasesImages(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(context.Background(), dir, "v0.2.0", nil)
	require.NoError(t, err)
	var images []string
	for _, p := range clusterctl.Providers {
		data, err := os.ReadFile(filepath.Join(dir, p.Label, "v0.2.0", p.File))
		require.NoError(t, err)
		require.NotContains(t, string(data), "${", "clusterctl would take it for a variable")
		objs, err := components.Parse(data)
		require.NoError(t, err)
		require.NotEmpty(t, objs)
		for _, o := range objs {
			labels := o.GetLabels()
			require.Equal(t, p.Label, labels[clusterctl.ProviderLabel], "%s: %s %s", p.File, o.GetKind(), o.GetName())
			_, owned := labels[clusterctl.OwnedLabel]
			require.True(t, owned, "%s: %s %s", p.File, o.GetKind(), o.GetName())
		}
		images = append(images, components.Images(objs)...)
	}
	require.Equal(t, []string{"docker.io/capstan/core-manager:v0.2.0", "docker.io/capstan/bootstrap-kubeadm-manager:v0.2.0",
		"docker.io/capstan/infrastructure-docker-manager:v0.2.0"}, images, "tagged with the release, named canonically as clusterctl requires")
}

func TestWrite_TemplatesUseClusterctlsVariables(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(context.Background(), dir, "v0.2.0", nil)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, "infrastructure-docker", "v0.2.0", "cluster-template.yaml"))
	require.NoError(t, err)
	for _, v := range []string{"${CLUSTER_NAME}", "${KUBERNETES_VERSION}", "${NAMESPACE}", "${CONTROL_PLANE_MACHINE_COUNT", "${WORKER_MACHINE_COUNT"} {
		require.Contains(t, string(data), v)
	}
}

func TestWrite_RefusesAVersionClusterctlCannotParseBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(context.Background(), dir, "ci-passed-c9ec92f", nil)
	require.ErrorContains(t, err, `release version "ci-passed-c9ec92f" is not a semantic version with a leading v (e.g. v0.1.0)`)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestCanonical_AddsTheRegistryAShortNameImplies(t *testing.T) {
	for in, want := range map[string]string{
		"capstan/core-manager:v1":       "docker.io/capstan/core-manager:v1",
		"busybox:1":                     "docker.io/library/busybox:1",
		"docker.io/capstan/x:v1":        "docker.io/capstan/x:v1",
		"registry.local:5000/capstan/x": "registry.local:5000/capstan/x",
		"localhost/capstan/x:v1":        "localhost/capstan/x:v1",
		"ghcr.io/x/y@sha256:0123":       "ghcr.io/x/y@sha256:0123",
	} {
		require.Equal(t, want, canonical(in), in)
	}
}
