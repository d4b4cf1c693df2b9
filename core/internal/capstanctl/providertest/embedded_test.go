package providertest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/release"
)

// Capstan's own providers, installed by plain capstanctl init at v0.1.0, upgrade as any
// provider does once the configuration file lists a repository for them, here the one make
// release writes: plan offers the newer release for each of the four, apply runs each manager
// Deployment at the newer image and records the version in clusterctl's inventory, and the
// CRDs stay (with the objects the clusters keep).
func TestUpgrade_CapstansOwnProvidersFromTheirReleaseRepository(t *testing.T) {
	mc, err := envtest.Start(envtest.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, mc.Stop()) })
	kc := ctltest.KubeconfigFile(t, mc)
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	ctl := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := ctltest.Run(t, cmd.Execute, append(args, "--kubeconfig", kc)...)
		require.Equal(t, 0, code, "capstanctl %v\nstdout:\n%s\nstderr:\n%s", args, stdout, stderr)
		return stdout
	}
	ctl("init", "--image-tag", "v0.1.0")
	repo := filepath.Join(dir, "repo")
	_, err = release.Write(context.Background(), repo, "v0.2.0", nil)
	require.NoError(t, err)
	cfg := filepath.Join(repo, release.ConfigFile)

	plan := ctl("upgrade", "plan", "--config", cfg)
	for _, p := range clusterctl.Providers {
		require.Regexp(t, p.Name+` +\S+ +`+p.Type+` +v0.1.0 +v0.2.0\n`, plan)
	}
	ctl("upgrade", "apply", "--config", cfg, "--contract", "v1beta2")

	// The release names its images canonically, as clusterctl requires.
	require.Equal(t, map[string]string{
		"core":                  "docker.io/capstan/core-manager:v0.2.0",
		"bootstrap-kubeadm":     "docker.io/capstan/bootstrap-kubeadm-manager:v0.2.0",
		"infrastructure-docker": "docker.io/capstan/infrastructure-docker-manager:v0.2.0",
	}, ctltest.ManagerImages(t, mc))
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(clusterctl.APIVersion)
	list.SetKind(clusterctl.InventoryKind + "List")
	require.NoError(t, mc.Client.List(context.Background(), list))
	require.Len(t, list.Items, len(clusterctl.Providers))
	for _, e := range list.Items {
		v, _, _ := unstructured.NestedString(e.Object, "version")
		require.Equal(t, "v0.2.0", v, "inventory entry %s", e.GetName())
	}
	require.Contains(t, ctl("upgrade", "plan", "--config", cfg), "You are already up to date!")
}
