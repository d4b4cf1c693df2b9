package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// workspaceModules are the modules go.work uses.
func workspaceModules(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "go.work"))
	require.NoError(t, err)
	var dirs []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(\./\S*)\s*$`).FindAllStringSubmatch(string(data), -1) {
		dirs = append(dirs, m[1])
	}
	require.NotEmpty(t, dirs)
	return dirs
}

// Kubernetes staging modules are released together; mixing releases compiles but
// misbehaves at runtime. Every module must pin the same release of each, and
// controller-runtime at the release that matches it.
func TestGoMod_OneKubernetesReleaseAcrossModules(t *testing.T) {
	staging := regexp.MustCompile(`(?m)^\s*(?:require\s+)?(k8s\.io/(?:api|apimachinery|client-go|apiextensions-apiserver|apiserver|component-base|code-generator|kms|streaming|cli-runtime|kubectl|metrics|cluster-bootstrap))\s+(v\S+)`)
	cr := regexp.MustCompile(`(?m)^\s*(?:require\s+)?sigs\.k8s\.io/controller-runtime\s+(v\S+)`)
	for _, dir := range workspaceModules(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, dir, "go.mod"))
		require.NoError(t, err)
		for _, m := range staging.FindAllStringSubmatch(string(data), -1) {
			require.Equal(t, "v0.37.2", m[2], "%s/go.mod pins %s", dir, m[1])
		}
		if m := cr.FindStringSubmatch(string(data)); m != nil {
			require.Equal(t, "v0.25.3", m[1], "%s/go.mod pins controller-runtime", dir)
		}
	}
}

// hack/k8s must stay out of go.work: kubernetes' build list would leak into ours.
func TestGoWork_ExcludesTheKubernetesRecipe(t *testing.T) {
	for _, dir := range workspaceModules(t) {
		require.False(t, strings.HasPrefix(filepath.Clean(dir), "hack/k8s"), "go.work uses %s", dir)
	}
}

// Capstan writes its own Cluster API: no module it builds may require upstream's. Upstream's
// clusterctl is built for the interop test from hack/clusterctl, which must stay out of go.work.
func TestGoWork_NoModuleRequiresUpstreamClusterAPI(t *testing.T) {
	upstream := regexp.MustCompile(`(?m)^\s*(?:require\s+)?sigs\.k8s\.io/cluster-api(?:/\S*)?\s+v`)
	for _, dir := range workspaceModules(t) {
		require.False(t, strings.HasPrefix(filepath.Clean(dir), "hack/clusterctl"), "go.work uses %s", dir)
		data, err := os.ReadFile(filepath.Join(repoRoot, dir, "go.mod"))
		require.NoError(t, err)
		require.False(t, upstream.Match(data), "%s/go.mod requires sigs.k8s.io/cluster-api", dir)
	}
}

// hack/kube-state-metrics builds upstream's kube-state-metrics for make test-metrics only: its
// build list (the Kubernetes v0.36 libraries; Capstan pins v0.37) must stay out of go.work too.
func TestGoWork_ExcludesTheKubeStateMetricsBuild(t *testing.T) {
	for _, dir := range workspaceModules(t) {
		require.False(t, strings.HasPrefix(filepath.Clean(dir), "hack/kube-state-metrics"), "go.work uses %s", dir)
	}
}
