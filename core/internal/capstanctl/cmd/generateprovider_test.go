package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	examplerelease "capstan.dev/contracts/conformance/example/release"
)

// exampleRepository writes the example provider's releases as a clusterctl repository and a
// configuration file listing it (with one variable), and returns the file.
func exampleRepository(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range examplerelease.Versions {
		require.NoError(t, examplerelease.Write(filepath.Join(dir, "repo"), v))
	}
	cfg := filepath.Join(dir, "clusterctl.yaml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, "providers:\n- name: example\n  type: InfrastructureProvider\n  url: %s\nKUBERNETES_VERSION: v1.36.3\n",
		filepath.Join(dir, "repo", examplerelease.ProviderLabel, "latest", "infrastructure-components.yaml")), 0o600))
	return cfg
}

func TestGenerateCluster_FromAProviderRepository(t *testing.T) {
	cfg := exampleRepository(t)
	r := run(t, "generate", "cluster", "ex", "--config", cfg, "--infrastructure", "example:v0.1.0", "--target-namespace", "team", "--worker-machine-count", "3")
	require.Equal(t, 0, r.code, r.stderr)
	objs := objects(t, r.stdout)
	require.Contains(t, objs, "ExampleCluster/ex")
	require.Contains(t, objs, "Secret/ex-bootstrap")
	require.Equal(t, int64(3), replicas(t, objs, "MachineDeployment/ex-md-0"))
	version, _, _ := unstructured.NestedString(objs["MachineDeployment/ex-md-0"].Object, "spec", "template", "spec", "version")
	require.Equal(t, "v1.36.3", version, "the configuration file's variable beats the flag default, as clusterctl's")
	for key, o := range objs {
		require.Equal(t, "team", o.GetNamespace(), key)
	}

	t.Setenv("KUBERNETES_VERSION", "v1.37.2")
	r = run(t, "generate", "cluster", "ex", "--config", cfg, "--infrastructure", "example")
	require.Equal(t, 0, r.code, r.stderr)
	version, _, _ = unstructured.NestedString(objects(t, r.stdout)["MachineDeployment/ex-md-0"].Object, "spec", "template", "spec", "version")
	require.Equal(t, "v1.37.2", version, "the environment beats the configuration file")
}

func TestGenerateCluster_FromAProviderRepositoryErrors(t *testing.T) {
	cfg := exampleRepository(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"UnknownProvider", []string{"--infrastructure", "aws"}, "--infrastructure aws: " + cfg + " lists no InfrastructureProvider aws"},
		{"UnknownVersion", []string{"--infrastructure", "example:v0.9.0"}, "has no version v0.9.0: it has v0.2.0, v0.1.0"},
		{"UnknownFlavor", []string{"--infrastructure", "example", "--flavor", "ha"}, "provider infrastructure-example v0.2.0 has no cluster-template-ha.yaml: it has cluster-template.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"generate", "cluster", "ex", "--config", cfg}, tt.args...)...)
			require.Equal(t, 1, r.code)
			require.Contains(t, r.stderr, tt.want)
			require.Empty(t, r.stdout)
		})
	}
}
