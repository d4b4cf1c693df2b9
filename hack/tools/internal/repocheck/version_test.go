package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/k8sbin"
)

// The Kubernetes version is written in three places that no compiler connects: the
// build recipe's go.mod, the Makefile and the k8sbin constant the test harness uses.
func TestKubernetesVersion_AgreesAcrossRecipeMakefileAndHarness(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "hack", "k8s", "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes\s+(v\S+)`).FindSubmatch(gomod)
	require.NotNil(t, m, "hack/k8s/go.mod requires k8s.io/kubernetes")
	require.Equal(t, k8sbin.KubernetesVersion, string(m[1]), "hack/k8s/go.mod vs contracts/k8sbin")

	makefile, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	require.NoError(t, err)
	mk := regexp.MustCompile(`(?m)^KUBERNETES_VERSION\s*\?=\s*(\S+)`).FindSubmatch(makefile)
	require.NotNil(t, mk, "Makefile sets KUBERNETES_VERSION")
	require.Equal(t, k8sbin.KubernetesVersion, string(mk[1]), "Makefile vs contracts/k8sbin")
}
