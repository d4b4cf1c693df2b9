//go:build clusterctl

package interop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/release"
)

var env *envtest.Environment

// TestMain starts an API server with the core's CRDs (envtest always installs them with the
// core's admission policies; clusterctl patches them) and with cert-manager's Issuer and Certificate kinds: clusterctl init counts cert-manager as running
// when it can create an Issuer and a Certificate, and no cert-manager can run here (no
// registry, no images). Nothing in Capstan's components uses cert-manager.
func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{
		CRDs: []*apiextensionsv1.CustomResourceDefinition{certManagerCRD("Issuer", "issuers"), certManagerCRD("Certificate", "certificates")},
	}, &env))
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

// runClusterctl runs upstream's clusterctl with a home of its own (no user configuration, no
// version check against GitHub) and returns its combined output.
func runClusterctl(t *testing.T, home string, args ...string) (string, error) {
	t.Helper()
	c := exec.CommandContext(t.Context(), clusterctlBinary(t), args...)
	c.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"CLUSTERCTL_DISABLE_VERSIONCHECK=true", "PATH=" + os.Getenv("PATH")}
	out, err := c.CombinedOutput()
	t.Logf("clusterctl %v:\n%s", args, out)
	return string(out), err
}

func kubeconfigFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, env.KubeConfig, 0o600))
	return path
}

// inventory returns the inventory entries, each as "namespace/name providerName type version
// labels".
func inventory(t *testing.T) []string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(clusterctl.APIVersion)
	list.SetKind("ProviderList")
	require.NoError(t, env.Client.List(context.Background(), list))
	var out []string
	for _, p := range list.Items {
		out = append(out, fmt.Sprintf("%s/%s %s %s %s %v", p.GetNamespace(), p.GetName(),
			p.Object["providerName"], p.Object["type"], p.Object["version"], p.GetLabels()))
	}
	return out
}

// deployments returns the image of each provider's manager Deployment, by module; "" when the
// Deployment does not exist.
func deployments(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range components.All {
		objs, err := m.Objects()
		require.NoError(t, err)
		for _, o := range objs {
			if o.GetKind() != "Deployment" {
				continue
			}
			d := &appsv1.Deployment{}
			err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), d)
			if apierrors.IsNotFound(err) {
				out[m.Module] = ""
				continue
			}
			require.NoError(t, err)
			out[m.Module] = d.Spec.Template.Spec.Containers[0].Image
		}
	}
	return out
}

// Upstream clusterctl reads the inventory capstanctl init writes (upgrade plan finds every
// provider up to date, delete --all finds and removes every provider's components by their
// labels), and installs Capstan's release from make release's repository, writing the same
// inventory capstanctl init writes.
func TestClusterctl_ReadsCapstanctlsInventoryAndInstallsTheRelease(t *testing.T) {
	repo := t.TempDir()
	_, err := release.Write(context.Background(), repo, version, nil)
	require.NoError(t, err)
	home, kc := t.TempDir(), kubeconfigFile(t)
	config := filepath.Join(repo, release.ConfigFile)
	want, err := clusterctl.Inventory(components.All, version)
	require.NoError(t, err)
	var wantInventory []string
	for _, p := range want {
		wantInventory = append(wantInventory, fmt.Sprintf("%s/%s %s %s %s %v", p.GetNamespace(), p.GetName(),
			p.Object["providerName"], p.Object["type"], p.Object["version"], p.GetLabels()))
	}

	stdout, stderr, code := ctltest.Run(t, cmd.Execute, "init", "--kubeconfig", kc, "--image-tag", version)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)

	out, err := runClusterctl(t, home, "upgrade", "plan", "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	require.Contains(t, out, "You are already up to date!")
	for _, p := range clusterctl.Providers {
		require.Regexp(t, p.Label+` +\S+ +`+p.Type+` +`+version+` +Already up to date`, out)
	}

	_, err = runClusterctl(t, home, "delete", "--all", "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	require.Empty(t, inventory(t), "clusterctl delete found every entry capstanctl init wrote")
	require.Equal(t, map[string]string{"core": "", "bootstrap-kubeadm": "", "infrastructure-docker": ""}, deployments(t),
		"clusterctl delete found every manager by the labels capstanctl init applied")

	_, err = runClusterctl(t, home, "init", "--config", config, "--kubeconfig", kc,
		"--core", "cluster-api", "--bootstrap", "kubeadm", "--control-plane", "kubeadm", "--infrastructure", "docker")
	require.NoError(t, err)
	require.ElementsMatch(t, wantInventory, inventory(t), "clusterctl's inventory is the one capstanctl init writes")
	require.Equal(t, map[string]string{
		"core":                  "docker.io/capstan/core-manager:" + version,
		"bootstrap-kubeadm":     "docker.io/capstan/bootstrap-kubeadm-manager:" + version,
		"infrastructure-docker": "docker.io/capstan/infrastructure-docker-manager:" + version,
	}, deployments(t))
}

// Upstream clusterctl's move discovers kinds only through CRDs labelled
// clusterctl.cluster.x-k8s.io: with Capstan's labels it finds a Cluster's DockerCluster and
// kubeconfig Secret, writes them to a directory and leaves the Cluster unpaused.
func TestClusterctl_MoveToDirectoryFindsCapstansKindsByTheirLabels(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	_, err := release.Write(context.Background(), repo, version, nil)
	require.NoError(t, err)
	home, kc := t.TempDir(), kubeconfigFile(t)
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, "init", "--kubeconfig", kc, "--image-tag", version)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)

	ns := env.CreateNamespace(t, "clusterctl-move")
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"name": "c1", "namespace": ns},
		"spec": map[string]any{"infrastructureRef": map[string]any{
			"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerCluster", "name": "c1"}},
	}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	// What the core would have written once the Cluster was up: clusterctl moves only such Clusters.
	envtest.UpdateStatus(t, env.Client, cluster, func() {
		cluster.Object["status"] = map[string]any{
			"initialization": map[string]any{"infrastructureProvisioned": true},
			"conditions": []any{map[string]any{"type": "ControlPlaneInitialized", "status": "True", "reason": "Initialized",
				"message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
		}
	})
	owner := []any{map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "name": "c1", "uid": string(cluster.GetUID())}}
	infra := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerCluster",
		"metadata": map[string]any{"name": "c1", "namespace": ns, "ownerReferences": owner},
		"spec":     map[string]any{},
	}}
	require.NoError(t, env.Client.Create(ctx, infra))
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "c1-kubeconfig", "namespace": ns},
		"stringData": map[string]any{"value": "kubeconfig"},
	}}
	require.NoError(t, env.Client.Create(ctx, secret))

	dir := t.TempDir()
	_, err = runClusterctl(t, home, "move", "--to-directory", dir, "-n", ns, "--config", filepath.Join(repo, release.ConfigFile), "--kubeconfig", kc)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	require.ElementsMatch(t, []string{"Cluster_" + ns + "_c1.yaml", "DockerCluster_" + ns + "_c1.yaml", "Secret_" + ns + "_c1-kubeconfig.yaml"}, files)

	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster))
	paused, _, _ := unstructured.NestedBool(cluster.Object, "spec", "paused")
	require.False(t, paused, "clusterctl resumed the Cluster after writing it")
}
