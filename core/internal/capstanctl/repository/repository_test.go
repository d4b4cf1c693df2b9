package repository

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultPaths_XDGThenLegacyCapstanctlFirst(t *testing.T) {
	env := map[string]string{}
	got := DefaultPaths(func(k string) string { return env[k] }, "/home/u")
	require.Equal(t, []string{
		"/home/u/.config/cluster-api/capstanctl.yaml", "/home/u/.config/cluster-api/clusterctl.yaml",
		"/home/u/.cluster-api/capstanctl.yaml", "/home/u/.cluster-api/clusterctl.yaml",
	}, got)
	env["XDG_CONFIG_HOME"] = "/xdg"
	require.Equal(t, "/xdg/cluster-api/capstanctl.yaml", DefaultPaths(func(k string) string { return env[k] }, "/home/u")[0])
}

func TestFindConfig_ReadsTheFirstExistingFileAndItsVariables(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, "legacy.yaml")
	require.NoError(t, os.WriteFile(legacy, []byte(`providers:
- name: example
  url: /repo/infrastructure-example/latest/infrastructure-components.yaml
  type: InfrastructureProvider
EXAMPLE_REGION: eu-1
replicas: 3
`), 0o600))
	cfg, err := FindConfig("", []string{filepath.Join(dir, "absent.yaml"), legacy})
	require.NoError(t, err)
	require.Equal(t, legacy, cfg.Path)
	v, ok := cfg.Variable("example_region")
	require.True(t, ok)
	require.Equal(t, "eu-1", v)
	v, _ = cfg.Variable("REPLICAS")
	require.Equal(t, "3", v)
	_, ok = cfg.Provider("example", "InfrastructureProvider")
	require.True(t, ok)

	none, err := FindConfig("", []string{filepath.Join(dir, "absent.yaml")})
	require.NoError(t, err)
	require.Empty(t, none.Providers)
	_, err = FindConfig(filepath.Join(dir, "absent.yaml"), nil)
	require.ErrorContains(t, err, "absent.yaml")
}

func TestReadConfig_RefusesAnUnknownType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(path, []byte("providers:\n- {name: x, url: /a/b/c, type: IPAMProvider}\n"), 0o600))
	_, err := ReadConfig(path)
	require.ErrorContains(t, err, `provider x has type "IPAMProvider": capstanctl installs CoreProvider, BootstrapProvider, ControlPlaneProvider, InfrastructureProvider`)
}

func TestNewSource_ChecksTheURLAsClusterctl(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://github.com/x/releases/latest/infrastructure-components.yaml", "capstanctl reads local repositories only"},
		{"repo/infrastructure-example/v0.1.0/c.yaml", "must be an absolute path or file:// URL"},
		{"/repo/example/v0.1.0/c.yaml", "must have the form {basepath}/infrastructure-example/{version}/{components file}"},
		{"/repo/infrastructure-example/main/c.yaml", `its version directory must be a version or "latest"`},
	} {
		_, err := NewSource(ProviderEntry{Name: "example", Type: "InfrastructureProvider", URL: tc.url})
		require.ErrorContains(t, err, tc.want, tc.url)
	}
	s, err := NewSource(ProviderEntry{Name: "example", Type: "InfrastructureProvider", URL: "file:///repo/infrastructure-example/latest/c.yaml"})
	require.NoError(t, err)
	require.Equal(t, Source{Name: "example", Type: "InfrastructureProvider", Label: "infrastructure-example",
		Dir: "/repo/infrastructure-example", ComponentsFile: "c.yaml", DefaultVersion: Latest}, s)
}

func TestResolve_LatestIsTheHighestReleaseNotAPreRelease(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "infrastructure-example")
	for _, v := range []string{"v0.9.0", "v0.10.0", "v0.11.0-rc.1", "notaversion"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, v), 0o755))
	}
	s := Source{Label: "infrastructure-example", Dir: dir, DefaultVersion: Latest}
	v, err := s.Resolve("")
	require.NoError(t, err)
	require.Equal(t, "v0.10.0", v)
	v, err = s.Resolve("v0.11.0-rc.1")
	require.NoError(t, err)
	require.Equal(t, "v0.11.0-rc.1", v)
	_, err = s.Resolve("v0.8.0")
	require.ErrorContains(t, err, "has no version v0.8.0: it has v0.11.0-rc.1, v0.10.0, v0.9.0")
}
