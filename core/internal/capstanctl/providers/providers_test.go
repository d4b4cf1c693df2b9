package providers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/contract"
)

// TestShipped_MatchesTheCRDsTheModulesGenerate reads each module's generated CRDs
// (as files: core must not import the provider modules) and requires the table to
// list exactly their kinds, with the contract label the provider CRDs carry.
func TestShipped_MatchesTheCRDsTheModulesGenerate(t *testing.T) {
	root := repoRoot(t)
	dirs := map[string]string{
		CoreProvider:           "contracts/config/crd/bases",
		BootstrapProvider:      "bootstrap-kubeadm/config/crd/bases",
		ControlPlaneProvider:   "bootstrap-kubeadm/config/crd/bases",
		InfrastructureProvider: "infrastructure-docker/config/crd/bases",
	}
	for _, p := range Shipped("v9.9.9") {
		t.Run(p.Type, func(t *testing.T) {
			require.Equal(t, "v9.9.9", p.Version)
			require.Equal(t, "v1beta2", p.Contract)
			files, err := filepath.Glob(filepath.Join(root, dirs[p.Type], "*.yaml"))
			require.NoError(t, err)
			var want []string
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				crd := &apiextensionsv1.CustomResourceDefinition{}
				require.NoError(t, yaml.Unmarshal(data, crd), f)
				if crd.Spec.Group != p.APIGroup {
					continue
				}
				want = append(want, crd.Spec.Names.Kind)
				require.Equal(t, contract.CalculateCRDName(p.APIGroup, crd.Spec.Names.Kind), crd.Name)
				if p.Type != CoreProvider {
					require.Equal(t, "v1beta2", crd.Labels[contract.V1Beta2.Label()], "contract label of %s", crd.Name)
				}
			}
			slices.Sort(want)
			require.Equal(t, want, p.Kinds, "kinds of %s %s", p.Name, p.Type)
		})
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for !strings.HasSuffix(dir, string(filepath.Separator)) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	t.Fatal("no go.work above the package directory")
	return ""
}
