package providertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/ctltest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(envtest.Run(m, envtest.Options{}, &env)) }

type result struct {
	stdout, stderr string
	code           int
}

// run executes capstanctl in-process against the suite's cluster (see onCluster).
func run(t *testing.T, args ...string) result {
	t.Helper()
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, onCluster(t, args)...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// start runs capstanctl as run does, in the background.
func start(t *testing.T, args ...string) *ctltest.Running {
	t.Helper()
	return ctltest.Start(t, cmd.Execute, onCluster(t, args)...)
}

// onCluster points XDG_CONFIG_HOME and HOME at empty directories, so that only --config names
// a configuration file, and adds --kubeconfig for the suite's cluster to args.
func onCluster(t *testing.T, args []string) []string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	kc := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kc, env.KubeConfig, 0o600))
	return append(args, "--kubeconfig", kc)
}

// config writes a configuration file listing the repository's providers and extra lines.
func config(t *testing.T, extra string) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("testdata", "repository"))
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("providers:\n")
	for _, p := range []struct{ name, version string }{
		{"example", "latest"}, {"oldcontract", "v0.1.0"}, {"nometadata", "v0.1.0"}, {"certmanager", "v0.1.0"},
	} {
		fmt.Fprintf(&b, "- name: %s\n  type: InfrastructureProvider\n  url: file://%s/infrastructure-%s/%s/infrastructure-components.yaml\n",
			p.name, repo, p.name, p.version)
	}
	b.WriteString(extra)
	path := filepath.Join(t.TempDir(), "clusterctl.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// skipped are kinds the snapshot leaves out: the API server writes Events and Leases itself,
// and reading the deprecated ComponentStatus and Endpoints only logs warnings.
var skipped = map[string]bool{"Event": true, "Lease": true, "ComponentStatus": true, "Endpoints": true}

// snapshot records every object the cluster serves (but the skipped kinds), by
// kind/namespace/name, with its resourceVersion.
func snapshot(t *testing.T) map[string]string {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	require.NoError(t, err)
	lists, err := discovery.ServerPreferredResources(dc)
	require.NoError(t, err)
	out := map[string]string{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || skipped[r.Kind] {
				continue
			}
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(l.GroupVersion)
			list.SetKind(r.Kind + "List")
			require.NoError(t, env.Client.List(context.Background(), list), r.Name)
			for _, u := range list.Items {
				out[l.GroupVersion+"/"+r.Kind+"/"+u.GetNamespace()+"/"+u.GetName()] = u.GetResourceVersion()
			}
		}
	}
	return out
}

func get(t *testing.T, apiVersion, kind, namespace, name string) (*unstructured.Unstructured, error) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u)
	return u, err
}

const exampleCRD = "exampleclusters.infrastructure.example.capstan.dev"

// TestInitFromRepository_InstallsDeletesAndRefuses runs in order, on one cluster: each
// refusal before the example is installed, the installation, the refusals that need it
// installed (a downgrade, --include-crd with objects), and the deletion.
func TestInitFromRepository_InstallsDeletesAndRefuses(t *testing.T) {
	cfg := config(t, "EXAMPLE_SYNC_PERIOD: 5m\n")
	t.Run("ListVariablesPrintsThemAndInstallsNothing", func(t *testing.T) { listVariablesPrintsThemAndInstallsNothing(t, cfg) })
	refusesBeforeInstall(t, cfg)
	t.Run("InstallsTheLatestWithItsInventoryEntry", func(t *testing.T) { installsTheLatestWithItsInventoryEntry(t, cfg) })
	t.Run("RefusesADowngrade", func(t *testing.T) { refusesADowngrade(t, cfg) })
	t.Run("DeleteIncludeCRDRefusedWhileObjectsExist", func(t *testing.T) { deleteIncludeCRDRefusedWhileObjectsExist(t, cfg) })
	t.Run("DeleteRemovesTheComponentsAndKeepsTheCRD", func(t *testing.T) { deleteRemovesTheComponentsAndKeepsTheCRD(t, cfg) })
	t.Run("InstallsIntoTheTargetNamespace", func(t *testing.T) { installsIntoTheTargetNamespace(t, cfg) })
	t.Run("DeleteWithCRDAndNamespace", func(t *testing.T) { deleteWithCRDAndNamespace(t, cfg) })
}

func listVariablesPrintsThemAndInstallsNothing(t *testing.T, cfg string) {
	before := snapshot(t)
	t.Setenv("EXAMPLE_REGION", "eu-1")
	r := run(t, "init", "--config", cfg, "--infrastructure", "example:v0.1.0", "--list-variables")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, `Variables of infrastructure-example v0.1.0:
  NAME                 DEFAULT     SET
  EXAMPLE_LOG_LEVEL    "2"         no
  EXAMPLE_REGION       (required)  environment
  EXAMPLE_SYNC_PERIOD  "10m"       configuration file
`, r.stdout)
	require.Empty(t, cmp.Diff(before, snapshot(t)), "the cluster changed")
}

// refusesBeforeInstall runs each refusal that needs no provider installed, checking the cluster
// is unchanged.
func refusesBeforeInstall(t *testing.T, cfg string) {
	for _, tc := range []struct {
		name, want string
		args       []string
		env        map[string]string
	}{
		{name: "UnknownProvider", args: []string{"--infrastructure", "nosuch"},
			want: `--infrastructure nosuch: unknown InfrastructureProvider "nosuch": the configuration file ` + cfg +
				` does not list it; known: example, oldcontract, nometadata, certmanager, docker (embedded)`},
		{name: "UnknownVersion", args: []string{"--infrastructure", "example:v0.3.0"},
			want: "has no version v0.3.0: it has v0.2.0, v0.1.0"},
		{name: "ContractMismatch", args: []string{"--infrastructure", "oldcontract"},
			want: "infrastructure-oldcontract v0.1.0 implements contract v1beta1 (metadata.yaml, release series 0.1), and Capstan's core implements v1beta2"},
		{name: "NoMetadata", args: []string{"--infrastructure", "nometadata"},
			want: "infrastructure-nometadata has no metadata.yaml for v0.1.0"},
		{name: "MissingVariable", args: []string{"--infrastructure", "example"},
			want: "infrastructure-example v0.2.0 needs variables EXAMPLE_REGION, which neither the environment nor the configuration file sets"},
		{name: "CertManagerMissing", args: []string{"--infrastructure", "certmanager"},
			want: "infrastructure-certmanager v0.1.0 needs cert-manager, and the management cluster has none (no CustomResourceDefinition certificates.cert-manager.io): " +
				"Issuer certmanager-system/certmanager-selfsigned-issuer, Certificate certmanager-system/certmanager-serving-cert, " +
				"ValidatingWebhookConfiguration certmanager-validating-webhook-configuration need it. Capstan itself does not need cert-manager"},
		{name: "ProvidersFlagWithTypeFlag", args: []string{"--infrastructure", "example", "--providers", "core"},
			want: "drop one of them"},
		{name: "VersionOfEmbedded", args: []string{"--infrastructure", "docker:v0.1.0"},
			want: "docker is Capstan's embedded provider"},
	} {
		t.Run("Refuses"+tc.name, func(t *testing.T) {
			before := snapshot(t)
			r := run(t, append([]string{"init", "--config", cfg}, tc.args...)...)
			require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stderr, tc.want)
			require.Empty(t, cmp.Diff(before, snapshot(t)), "the cluster changed")
		})
	}
}

func installsTheLatestWithItsInventoryEntry(t *testing.T, cfg string) {
	t.Setenv("EXAMPLE_REGION", "eu-1")
	r := run(t, "init", "--config", cfg, "--infrastructure", "example")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Installing providers infrastructure-example v0.2.0 into namespace example-system into the management cluster at")
	require.Contains(t, r.stdout, "CustomResourceDefinition "+exampleCRD+" created\n")
	checkInstalled(t, "example-system", "v0.2.0", "--v=2", "--region=eu-1", "--sync-period=5m")

	again := run(t, "init", "--config", cfg, "--infrastructure", "example:v0.2.0")
	require.Equal(t, 0, again.code, "stdout:\n%s\nstderr:\n%s", again.stdout, again.stderr)
	require.NotContains(t, again.stdout, " created\n")
	require.NotContains(t, again.stdout, " configured\n")
}

func refusesADowngrade(t *testing.T, cfg string) {
	t.Setenv("EXAMPLE_REGION", "eu-1")
	before := snapshot(t)
	r := run(t, "init", "--config", cfg, "--infrastructure", "example:v0.1.0")
	require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "infrastructure-example v0.2.0 is installed, and v0.1.0 is older: capstanctl does not downgrade a provider")
	require.Empty(t, cmp.Diff(before, snapshot(t)), "the cluster changed")
}

func deleteIncludeCRDRefusedWhileObjectsExist(t *testing.T, cfg string) {
	for _, n := range []string{"a", "b"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("infrastructure.example.capstan.dev/v1alpha1")
		u.SetKind("ExampleCluster")
		u.SetNamespace("default")
		u.SetName(n)
		require.NoError(t, env.Client.Create(context.Background(), u))
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), u) })
	}
	before := snapshot(t)
	r := run(t, "delete", "--provider", "infrastructure-example", "--include-crd")
	require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "provider infrastructure-example still has objects of its CRDs: 2 ExampleCluster")
	require.Empty(t, cmp.Diff(before, snapshot(t)), "the cluster changed")
}

func deleteRemovesTheComponentsAndKeepsTheCRD(t *testing.T, cfg string) {
	r := run(t, "delete", "--infrastructure", "example")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Deleting provider infrastructure-example v0.2.0 from namespace example-system\n")
	require.Contains(t, r.stdout, "Provider example-system/infrastructure-example deleted\n")
	for _, o := range []struct{ apiVersion, kind, namespace, name string }{
		{"apps/v1", "Deployment", "example-system", "example-controller-manager"},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "", "example-manager-role"},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "example-manager-rolebinding"},
		{"v1", "ServiceAccount", "example-system", "example-controller-manager"},
		{"clusterctl.cluster.x-k8s.io/v1alpha3", "Provider", "example-system", "infrastructure-example"},
	} {
		_, err := get(t, o.apiVersion, o.kind, o.namespace, o.name)
		require.True(t, apierrors.IsNotFound(err), "%s %s: %v", o.kind, o.name, err)
	}
	_, err := get(t, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", exampleCRD)
	require.NoError(t, err, "the CRD stays without --include-crd")
	_, err = get(t, "v1", "Namespace", "", "example-system")
	require.NoError(t, err, "the namespace stays without --include-namespace")

	r = run(t, "delete", "--provider", "infrastructure-example")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "provider infrastructure-example is not installed")
}

func installsIntoTheTargetNamespace(t *testing.T, cfg string) {
	t.Setenv("EXAMPLE_REGION", "us-2")
	// v0.2.0 again: v0.1.0's CRD would drop v1alpha2, at which the kept CRD stores its objects.
	r := run(t, "init", "--config", cfg, "--infrastructure", "example:v0.2.0", "--target-namespace", "example-elsewhere")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "CustomResourceDefinition "+exampleCRD+" unchanged\n", "the kept CRD is v0.2.0's")
	checkInstalled(t, "example-elsewhere", "v0.2.0", "--v=2", "--region=us-2", "--sync-period=5m")
	_, err := get(t, "v1", "Namespace", "", "example-system")
	require.NoError(t, err, "the first installation's namespace was kept")
}

func deleteWithCRDAndNamespace(t *testing.T, cfg string) {
	r := run(t, "delete", "--provider", "infrastructure-example", "--include-crd", "--include-namespace")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "CustomResourceDefinition "+exampleCRD+" deleted\n")
	require.Contains(t, r.stdout, "Namespace example-elsewhere deleted\n")
	require.NotContains(t, r.stdout, "Deployment example-elsewhere/", "the namespace's deletion removes what is in it")
	_, err := get(t, "rbac.authorization.k8s.io/v1", "ClusterRole", "", "example-manager-role")
	require.True(t, apierrors.IsNotFound(err), "ClusterRole example-manager-role: %v", err)
	// The API server finishes a CRD's deletion after removing its objects, and envtest runs
	// no namespace controller, so both may still be there, being deleted.
	for _, o := range []struct{ apiVersion, kind, name string }{
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", exampleCRD},
		{"v1", "Namespace", "example-elsewhere"},
	} {
		u, err := get(t, o.apiVersion, o.kind, "", o.name)
		require.True(t, apierrors.IsNotFound(err) || u.GetDeletionTimestamp() != nil, "%s %s: %v", o.kind, o.name, err)
	}
}

// checkInstalled checks the example's objects, labels, substituted variables and inventory entry.
func checkInstalled(t *testing.T, namespace, version string, args ...string) {
	t.Helper()
	d, err := get(t, "apps/v1", "Deployment", namespace, "example-controller-manager")
	require.NoError(t, err)
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	gotArgs, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	require.Equal(t, append([]string{"--leader-elect"}, args...), gotArgs)
	for _, o := range []struct{ apiVersion, kind, namespace, name string }{
		{"v1", "Namespace", "", namespace},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "", exampleCRD},
		{"v1", "ServiceAccount", namespace, "example-controller-manager"},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "", "example-manager-role"},
		{"rbac.authorization.k8s.io/v1", "Role", namespace, "example-leader-election-role"},
		{"apps/v1", "Deployment", namespace, "example-controller-manager"},
	} {
		u, err := get(t, o.apiVersion, o.kind, o.namespace, o.name)
		require.NoError(t, err, "%s %s", o.kind, o.name)
		require.Equal(t, "infrastructure-example", u.GetLabels()["cluster.x-k8s.io/provider"], "%s %s", o.kind, o.name)
		require.Contains(t, u.GetLabels(), "clusterctl.cluster.x-k8s.io", "%s %s", o.kind, o.name)
	}
	crb, err := get(t, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "example-manager-rolebinding")
	require.NoError(t, err)
	subjects, _, _ := unstructured.NestedSlice(crb.Object, "subjects")
	require.Equal(t, namespace, subjects[0].(map[string]any)["namespace"])

	inv, err := get(t, "clusterctl.cluster.x-k8s.io/v1alpha3", "Provider", namespace, "infrastructure-example")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/provider": "infrastructure-example",
		"clusterctl.cluster.x-k8s.io/core": "inventory"}, inv.GetLabels())
	for field, want := range map[string]string{"providerName": "example", "type": "InfrastructureProvider", "version": version} {
		got, _, _ := unstructured.NestedString(inv.Object, field)
		require.Equal(t, want, got, field)
	}
}

// TestFixture_CRDIsTheConformanceKitsExampleCluster keeps the repository's CRD equal to the
// conformance kit's, so that an e2e can run the kit's example controller against it: v0.1.0's
// spec is the kit's; v0.2.0's adds v1alpha2, the storage version, with the kit's schema.
func TestFixture_CRDIsTheConformanceKitsExampleCluster(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "contracts", "conformance", "example", "config", "crd", "bases",
		"infrastructure.example.capstan.dev_exampleclusters.yaml"))
	require.NoError(t, err)
	kit := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(want, kit))
	for _, v := range []string{"v0.1.0", "v0.2.0"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "repository", "infrastructure-example", v, "infrastructure-components.yaml"))
		require.NoError(t, err)
		objs, err := components.Parse(raw)
		require.NoError(t, err)
		i := slices.IndexFunc(objs, func(u *unstructured.Unstructured) bool { return u.GetKind() == "CustomResourceDefinition" })
		require.GreaterOrEqual(t, i, 0, v)
		got := &apiextensionsv1.CustomResourceDefinition{}
		js, err := objs[i].MarshalJSON()
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(js, got))
		if v == "v0.2.0" {
			require.Len(t, got.Spec.Versions, 2)
			require.Equal(t, []string{"v1alpha1", "v1alpha2"}, []string{got.Spec.Versions[0].Name, got.Spec.Versions[1].Name})
			require.True(t, got.Spec.Versions[0].Served && !got.Spec.Versions[0].Storage, "v1alpha1 served, not stored")
			require.True(t, got.Spec.Versions[1].Served && got.Spec.Versions[1].Storage, "v1alpha2 served and stored")
			v2 := got.Spec.Versions[1]
			v2.Name, v2.Storage = "v1alpha1", true
			require.Empty(t, cmp.Diff(kit.Spec.Versions[0], v2), "v1alpha2 has the kit's schema")
			got.Spec.Versions = got.Spec.Versions[1:]
			got.Spec.Versions[0] = v2
		}
		require.Empty(t, cmp.Diff(kit.Spec, got.Spec), v)
	}
}
