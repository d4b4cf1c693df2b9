package components

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/k8sbin"
)

const repoRoot = "../../../.."

// The files capstanctl embeds must be what a fresh kustomize build of each provider's
// config/default prints; otherwise `capstanctl init` would install stale CRDs or RBAC.
func TestComponents_EmbeddedFilesEqualAFreshKustomizeBuild(t *testing.T) {
	for _, p := range Providers {
		t.Run(p, func(t *testing.T) {
			want, err := Build(repoRoot, p)
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(repoRoot, OutputDir, p+".yaml"))
			require.NoError(t, err)
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Fatalf("%s/%s.yaml is stale: run 'make generate' (-fresh build +committed):\n%s", OutputDir, p, diff)
			}
		})
	}
}

// The library's output is what the kustomize CLI prints: kubectl's built-in kustomize
// (built from source by make k8s-binaries) is the reference.
func TestBuild_EqualsKubectlKustomize(t *testing.T) {
	kubectl, err := k8sbin.Path("kubectl")
	if err != nil {
		t.Skipf("no kubectl to compare with (make k8s-binaries builds it): %v", err)
	}
	for _, p := range Providers {
		t.Run(p, func(t *testing.T) {
			want, err := exec.Command(kubectl, "kustomize", filepath.Join(repoRoot, p, "config", "default")).Output()
			require.NoError(t, err)
			got, err := Build(repoRoot, p)
			require.NoError(t, err)
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Fatalf("krusty and kubectl kustomize differ (-kubectl +krusty):\n%s", diff)
			}
		})
	}
}

func TestWrite_RewritesOnlyChangedFiles(t *testing.T) {
	root := t.TempDir()
	for _, p := range Providers {
		dir := filepath.Join(root, p, "config", "default")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: `+p+`-system
resources:
- namespace.yaml
`), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "namespace.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: system\n"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, OutputDir), 0o755))

	written, err := Write(root)
	require.NoError(t, err)
	require.Len(t, written, len(Providers))
	got, err := os.ReadFile(filepath.Join(root, OutputDir, "core.yaml"))
	require.NoError(t, err)
	require.Equal(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: core-system\n", string(got))

	written, err = Write(root)
	require.NoError(t, err)
	require.Empty(t, written, "a second run with unchanged bases writes nothing")
}
