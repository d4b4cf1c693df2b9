//go:build clusterctl

package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/ctltest"
)

var env *envtest.Environment

// TestMain starts an API server with the core's CRDs (envtest always installs them with the
// core's admission policies; clusterctl patches them) and with cert-manager's Issuer and Certificate kinds: clusterctl init counts cert-manager as running
// when it can create an Issuer and a Certificate, and no cert-manager can run here (no
// registry, no images). Nothing in Capstan's components uses cert-manager.
func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, managementClusterOptions(), &env))
}

func managementClusterOptions() envtest.Options {
	return envtest.Options{
		CRDs: []*apiextensionsv1.CustomResourceDefinition{certManagerCRD("Issuer", "issuers"), certManagerCRD("Certificate", "certificates")},
	}
}

// startManagementCluster starts another API server as TestMain starts env, stopped when the
// test ends: a second management cluster, or one a test changes beyond what the others expect.
// Should the binary die first, the next envtest start kills its processes (contracts/envtest
// records every control plane it starts).
func startManagementCluster(t *testing.T) *envtest.Environment {
	t.Helper()
	e, err := envtest.Start(managementClusterOptions())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Stop()) })
	return e
}

func certManagerCRD(kind, plural string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".cert-manager.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cert-manager.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}

const version = "v0.1.0"

// clusterctlBinary is the binary make test-clusterctl built; a missing one fails the test (a
// skip would pass CI without running it).
func clusterctlBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CAPSTAN_CLUSTERCTL")
	require.NotEmpty(t, bin, "CAPSTAN_CLUSTERCTL names no clusterctl binary: run make test-clusterctl, which builds it")
	return bin
}

// clusterctlCommand is upstream's clusterctl with a home of its own (no user configuration, no
// version check against GitHub), ended with the test.
func clusterctlCommand(t *testing.T, home string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.CommandContext(t.Context(), clusterctlBinary(t), args...)
	c.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"CLUSTERCTL_DISABLE_VERSIONCHECK=true", "PATH=" + os.Getenv("PATH")}
	return c
}

// runClusterctl runs clusterctlCommand and returns its combined output.
func runClusterctl(t *testing.T, home string, args ...string) (string, error) {
	t.Helper()
	out, err := clusterctlCommand(t, home, args...).CombinedOutput()
	t.Logf("clusterctl %v:\n%s", args, out)
	return string(out), err
}

// inventory returns e's inventory entries, each as "namespace/name providerName type version
// labels".
func inventory(t *testing.T, e *envtest.Environment) []string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(clusterctl.APIVersion)
	list.SetKind("ProviderList")
	require.NoError(t, e.Client.List(context.Background(), list))
	var entries []*unstructured.Unstructured
	for i := range list.Items {
		entries = append(entries, &list.Items[i])
	}
	return formatInventory(entries)
}

// Upstream clusterctl reads the inventory capstanctl init writes (upgrade plan finds every
// provider up to date, delete --all finds and removes every provider's components by their
// labels), and installs Capstan's release from make release's repository, writing the same
// inventory capstanctl init writes.
func TestClusterctl_ReadsCapstanctlsInventoryAndInstallsTheRelease(t *testing.T) {
	config := writeRelease(t, t.TempDir(), version)
	want, err := clusterctl.Inventory(components.All, version)
	require.NoError(t, err)
	wantInventory := formatInventory(want)
	home, kc := t.TempDir(), capstanctlInit(t, env)

	out, err := runClusterctl(t, home, "upgrade", "plan", "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	require.Contains(t, out, "You are already up to date!")
	for _, p := range clusterctl.Providers {
		require.Regexp(t, p.Label+` +\S+ +`+p.Type+` +`+version+` +Already up to date`, out)
	}

	_, err = runClusterctl(t, home, "delete", "--all", "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	require.Empty(t, inventory(t, env), "clusterctl delete found every entry capstanctl init wrote")
	require.Equal(t, map[string]string{"core": "", "bootstrap-kubeadm": "", "infrastructure-docker": ""}, ctltest.ManagerImages(t, env),
		"clusterctl delete found every manager by the labels capstanctl init applied")

	_, err = runClusterctl(t, home, "init", "--config", config, "--kubeconfig", kc,
		"--core", "cluster-api", "--bootstrap", "kubeadm", "--control-plane", "kubeadm", "--infrastructure", "docker")
	require.NoError(t, err)
	require.ElementsMatch(t, wantInventory, inventory(t, env), "clusterctl's inventory is the one capstanctl init writes")
	require.Equal(t, managerImages(version), ctltest.ManagerImages(t, env))
}

// managerImages are the images of the providers' manager Deployments at release v, by module.
func managerImages(v string) map[string]string {
	return map[string]string{
		"core":                  "docker.io/capstan/core-manager:" + v,
		"bootstrap-kubeadm":     "docker.io/capstan/bootstrap-kubeadm-manager:" + v,
		"infrastructure-docker": "docker.io/capstan/infrastructure-docker-manager:" + v,
	}
}
