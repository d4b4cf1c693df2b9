package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/core/internal/capstanctl/repository"
)

func TestChoose_EmbeddedUnlessTheConfigurationFileListsTheProvider(t *testing.T) {
	reqs := []request{
		{flag: "bootstrap", providerType: "BootstrapProvider", name: "kubeadm"},
		{flag: "control-plane", providerType: "ControlPlaneProvider", name: "kubeadm"},
		{flag: "infrastructure", providerType: "InfrastructureProvider", name: "docker"},
	}
	ch, err := choose(reqs, repository.Config{})
	require.NoError(t, err)
	require.Empty(t, ch.releases)
	require.Len(t, ch.embedded, 2, "one kubeadm module serves both kubeadm providers")
	require.Equal(t, "kubeadm", ch.embedded[0].Name)
	require.Equal(t, "docker", ch.embedded[1].Name)

	repo := filepath.Join(t.TempDir(), "infrastructure-docker")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "v9.0.0"), 0o755))
	path := filepath.Join(t.TempDir(), "clusterctl.yaml")
	require.NoError(t, os.WriteFile(path, []byte("providers:\n- name: docker\n  type: InfrastructureProvider\n  url: "+
		filepath.Join(repo, "v9.0.0", "infrastructure-components.yaml")+"\n"), 0o600))
	cfg, err := repository.ReadConfig(path)
	require.NoError(t, err)
	_, err = choose(reqs[2:], cfg)
	require.ErrorContains(t, err, "repository "+repo+" has no metadata.yaml for v9.0.0", "a listed provider is read from its repository")
}
