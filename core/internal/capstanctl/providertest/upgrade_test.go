package providertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/core/internal/capstanctl/ctltest"
)

const exampleGroup = "infrastructure.example.capstan.dev"

// TestUpgrade_PlansAppliesMigratesAndRefuses runs in order, on one cluster: v0.1.0 installed
// with an ExampleCluster stored at v1alpha1, the refusals before the upgrade, the plan, the
// upgrade to v0.2.0, a second apply that changes nothing, and the refusals after it.
func TestUpgrade_PlansAppliesMigratesAndRefuses(t *testing.T) {
	t.Setenv("EXAMPLE_REGION", "eu-1")
	cfg := config(t, "")
	forgetEarlierInstallations(t)
	r := run(t, "init", "--config", cfg, "--infrastructure", "example:v0.1.0")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	obj := createExampleCluster(t)

	t.Run("RefusesBeforeChangingAnything", func(t *testing.T) { upgradeRefusals(t, cfg) })
	t.Run("PlanShowsTheNextVersion", func(t *testing.T) {
		r := run(t, "upgrade", "plan", "--config", cfg)
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, `Latest release available for the v1beta2 API Version of Cluster API (contract):

NAME      NAMESPACE        TYPE                     CURRENT VERSION   NEXT VERSION
example   example-system   InfrastructureProvider   v0.1.0            v0.2.0

You can now apply the upgrade by executing the following command:

capstanctl upgrade apply --contract v1beta2
`, r.stdout)
	})
	t.Run("ApplyMovesToTheNewestAndMigrates", func(t *testing.T) { applyMovesToTheNewestAndMigrates(t, cfg, obj) })
	t.Run("ApplyAgainChangesNothing", func(t *testing.T) {
		for _, args := range [][]string{{"--contract", "v1beta2"}, {"--infrastructure", "example-system/example:v0.2.0"}} {
			before := snapshot(t)
			r := run(t, append([]string{"upgrade", "apply", "--config", cfg}, args...)...)
			require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Equal(t, "Provider infrastructure-example is already at v0.2.0: nothing to do\n", r.stdout)
			require.Empty(t, cmp.Diff(before, snapshot(t)), "the cluster changed")
		}
	})
	t.Run("PlanSaysUpToDate", func(t *testing.T) {
		r := run(t, "upgrade", "plan", "--config", cfg)
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Contains(t, r.stdout, "example   example-system   InfrastructureProvider   v0.2.0            Already up to date\n")
		require.Contains(t, r.stdout, "You are already up to date!\n")
	})
	t.Run("RefusesAfterUpgrading", func(t *testing.T) { refusalsAfterUpgrade(t, cfg) })
	t.Run("ApplyWaitTimesOutNamingTheDeploymentAndItsCondition", applyWaitTimesOutNamingTheDeploymentAndItsCondition)
}

// createExampleCluster creates an ExampleCluster at v1alpha1, labelled as the provider's own
// objects are, so that the upgrade must keep it although its labels select it.
func createExampleCluster(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(exampleGroup + "/v1alpha1")
	u.SetKind("ExampleCluster")
	u.SetNamespace("default")
	u.SetName("upgraded")
	u.SetLabels(map[string]string{"cluster.x-k8s.io/provider": "infrastructure-example", "clusterctl.cluster.x-k8s.io": ""})
	require.NoError(t, env.Client.Create(context.Background(), u))
	return u
}

func applyMovesToTheNewestAndMigrates(t *testing.T, cfg string, obj *unstructured.Unstructured) {
	oldDeployment, err := get(t, "apps/v1", "Deployment", "example-system", "example-controller-manager")
	require.NoError(t, err)
	require.Equal(t, []string{"v1alpha1"}, storedVersions(t))

	// --wait: the command waits until the new Deployment is available, which the test writes
	// in the deployment controller's place.
	w := start(t, "upgrade", "apply", "--config", cfg, "--contract", "v1beta2", "--wait", "--timeout", "60s", "--poll-interval", "50ms")
	w.WaitOutput(t, "Waiting up to 1m0s for the managers to be available\n")
	w.WaitOutput(t, "Deployment example-system/example-controller-manager: waiting for the deployment controller to see the latest spec\n")
	ctltest.SetDeploymentAvailable(t, env, exampleDeployment(), true)
	code := w.Wait(t, 30*time.Second)
	stdout := w.Stdout.String()
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, w.Stderr.String())
	for _, line := range []string{
		"Upgrading provider infrastructure-example from v0.1.0 to v0.2.0 in namespace example-system\n",
		"Deployment example-system/example-controller-manager deleted\n",
		"CustomResourceDefinition " + exampleCRD + " configured\n",
		"Deployment example-system/example-controller-manager created\n",
		"CustomResourceDefinition " + exampleCRD + ": 1 ExampleCluster objects migrated from [v1alpha1 v1alpha2] to v1alpha2\n",
		"Provider example-system/infrastructure-example configured\n",
		"Deployment example-system/example-controller-manager: 1/1 updated, 1/1 available: available\n",
	} {
		require.Contains(t, stdout, line)
	}
	require.True(t, strings.HasSuffix(stdout, "Managers available\n"), "the wait comes after the inventory entry:\n%s", stdout)
	require.NotContains(t, stdout, "ExampleCluster default/upgraded deleted")
	checkInstalled(t, "example-system", "v0.2.0", "--v=2", "--region=eu-1", "--sync-period=10m")
	d, err := get(t, "apps/v1", "Deployment", "example-system", "example-controller-manager")
	require.NoError(t, err)
	require.NotEqual(t, oldDeployment.GetUID(), d.GetUID(), "the old Deployment was deleted")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	require.Equal(t, "registry.example/example-manager:v0.2.0", containers[0].(map[string]any)["image"])
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		got, err := get(t, exampleGroup+"/"+v, "ExampleCluster", "default", "upgraded")
		require.NoError(t, err, v)
		require.Equal(t, obj.GetUID(), got.GetUID(), v)
	}
	require.Equal(t, []string{"v1alpha2"}, storedVersions(t))
}

func storedVersions(t *testing.T) []string {
	t.Helper()
	crd, err := get(t, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", exampleCRD)
	require.NoError(t, err)
	got, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
	return got
}

// copyRepository copies the example's repository into a directory of its own, lets edit change
// it, and writes a configuration file listing it as "example".
func copyRepository(t *testing.T, edit func(dir string)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "infrastructure-example")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "repository", "infrastructure-example"))))
	edit(dir)
	path := filepath.Join(t.TempDir(), "clusterctl.yaml")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(
		"providers:\n- name: example\n  type: InfrastructureProvider\n  url: %s/latest/infrastructure-components.yaml\n", dir)), 0o600))
	return path
}

type refusal struct {
	name, want string
	args       []string
}

func checkRefusals(t *testing.T, cases []refusal) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t)
			r := run(t, append([]string{"upgrade", "apply"}, tc.args...)...)
			require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stderr, tc.want)
			require.Empty(t, cmp.Diff(before, snapshot(t)), "the cluster changed")
		})
	}
}

func upgradeRefusals(t *testing.T, cfg string) {
	noMetadata := copyRepository(t, func(dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "v0.2.0", "metadata.yaml"))) })
	checkRefusals(t, []refusal{
		{name: "UnknownProvider", args: []string{"--config", cfg, "--infrastructure", "nosuch:v0.2.0"},
			want: "--infrastructure nosuch: provider infrastructure-nosuch is not installed: clusterctl's inventory lists infrastructure-example v0.1.0"},
		{name: "VersionMissingFromTheRepository", args: []string{"--config", cfg, "--infrastructure", "example:v0.3.0"},
			want: "has no version v0.3.0: it has v0.2.0, v0.1.0"},
		{name: "NoMetadataForTheTarget", args: []string{"--config", noMetadata, "--infrastructure", "example:v0.2.0"},
			want: "has no metadata.yaml for v0.2.0"},
		{name: "OtherNamespace", args: []string{"--config", cfg, "--infrastructure", "capi-example-system/example:v0.2.0"},
			want: "provider infrastructure-example is installed in namespace example-system, not capi-example-system"},
		{name: "OtherContract", args: []string{"--config", cfg, "--contract", "v1beta1"},
			want: "--contract v1beta1: Capstan's core implements contract v1beta2 only"},
		{name: "ContractAndProvider", args: []string{"--config", cfg, "--contract", "v1beta2", "--infrastructure", "example:v0.2.0"},
			want: "drop one of them"},
		{name: "NoVersion", args: []string{"--config", cfg, "--infrastructure", "example"},
			want: `--infrastructure "example": write [NAMESPACE/]NAME:VERSION`},
		{name: "NonPositiveTimeout", args: []string{"--config", cfg, "--contract", "v1beta2", "--wait", "--timeout", "0s"},
			want: "--timeout must be positive, got 0s"},
	})
}

func exampleDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "example-system", Name: "example-controller-manager"}}
}

// withV030 copies the repository (copyRepository) with a v0.3.0 of contract v1beta2 made from
// v0.2.0's components rewritten by r.
func withV030(t *testing.T, r *strings.Replacer) string {
	t.Helper()
	return copyRepository(t, func(dir string) {
		require.NoError(t, os.CopyFS(filepath.Join(dir, "v0.3.0"), os.DirFS(filepath.Join(dir, "v0.2.0"))))
		path := filepath.Join(dir, "v0.3.0", "infrastructure-components.yaml")
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, []byte(r.Replace(string(raw))), 0o600))
		meta := filepath.Join(dir, "v0.3.0", "metadata.yaml")
		require.NoError(t, os.WriteFile(meta, []byte("apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- {major: 0, minor: 3, contract: v1beta2}\n"), 0o600))
	})
}

// applyWaitTimesOutNamingTheDeploymentAndItsCondition upgrades to a v0.3.0 whose Deployment
// never becomes available: the wait fails at its deadline naming the Deployment and its
// Available condition, and says the upgrade itself is done.
func applyWaitTimesOutNamingTheDeploymentAndItsCondition(t *testing.T) {
	cfg := withV030(t, strings.NewReplacer("example-manager:v0.2.0", "example-manager:v0.3.0"))
	began := time.Now()
	w := start(t, "upgrade", "apply", "--config", cfg, "--infrastructure", "example:v0.3.0", "--wait", "--timeout", "5s", "--poll-interval", "50ms")
	w.WaitOutput(t, "Waiting up to 5s for the managers to be available\n")
	ctltest.SetDeploymentAvailable(t, env, exampleDeployment(), false)
	require.Equal(t, 1, w.Wait(t, 30*time.Second), w.Stdout.String())
	require.Less(t, time.Since(began), 25*time.Second)
	stderr := w.Stderr.String()
	t.Logf("upgrade apply --wait on timeout:\n%s", stderr)
	for _, want := range []string{
		"the upgrade is applied and recorded in the inventory, but the managers are not available: timed out after 5s:\n",
		"Deployment example-system/example-controller-manager: 1/1 updated, 0/1 available (Available False: MinimumReplicasUnavailable)",
		"condition Available=False MinimumReplicasUnavailable: Deployment does not have minimum availability.",
	} {
		require.Contains(t, stderr, want)
	}
	checkInstalled(t, "example-system", "v0.3.0", "--v=2", "--region=eu-1", "--sync-period=10m")
}

func refusalsAfterUpgrade(t *testing.T, cfg string) {
	// v0.3.0 stores at v1alpha1 again and stops serving v1alpha2, at which the objects are stored.
	unserved := withV030(t, strings.NewReplacer(
		"    served: true\n    storage: false\n", "    served: true\n    storage: true\n", // v1alpha1
		"    served: true\n    storage: true\n", "    served: false\n    storage: false\n", // v1alpha2
	))
	checkRefusals(t, []refusal{
		{name: "Downgrade", args: []string{"--config", cfg, "--infrastructure", "example:v0.1.0"},
			want: "infrastructure-example v0.2.0 is installed, and v0.1.0 is older: upgrade does not downgrade a provider"},
		{name: "StoredVersionNoLongerServed", args: []string{"--config", unserved, "--infrastructure", "example:v0.3.0"},
			want: "CustomResourceDefinition " + exampleCRD + " has objects stored at v1alpha2 (status.storedVersions [v1alpha2]), " +
				"and infrastructure-example v0.3.0 serves only v1alpha1"},
	})
}

// forgetEarlierInstallations waits until an earlier test's deletion of the example's CRD is done
// and deletes its inventory entries: envtest runs no namespace controller, so a deleted
// namespace keeps what is in it.
func forgetEarlierInstallations(t *testing.T) {
	t.Helper()
	waitGone(t, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", exampleCRD)
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("clusterctl.cluster.x-k8s.io/v1alpha3")
	list.SetKind("ProviderList")
	if err := env.Client.List(context.Background(), list); err != nil {
		return // no inventory CRD: nothing was installed
	}
	for i := range list.Items {
		if list.Items[i].GetName() == "infrastructure-example" {
			require.NoError(t, env.Client.Delete(context.Background(), &list.Items[i]))
		}
	}
}

func waitGone(t *testing.T, apiVersion, kind, namespace, name string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := get(t, apiVersion, kind, namespace, name)
		return apierrors.IsNotFound(err)
	}, 30*time.Second, 200*time.Millisecond, "%s %s is still there", kind, name)
}
