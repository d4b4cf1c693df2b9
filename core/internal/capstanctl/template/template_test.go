package template

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// quickstartFlags are what `capstanctl generate cluster quickstart --kubernetes-version
// v1.37.2 --control-plane-machine-count 1 --worker-machine-count 1` sets.
var quickstartFlags = map[string]string{
	"CLUSTER_NAME": "quickstart", "KUBERNETES_VERSION": "v1.37.2",
	"CONTROL_PLANE_MACHINE_COUNT": "1", "WORKER_MACHINE_COUNT": "1",
}

var flagDefaults = map[string]string{"NAMESPACE": "default"}

func noEnv(string) (string, bool) { return "", false }

// repoRoot walks up from the package directory to the directory holding go.work.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the package directory")
		}
		dir = parent
	}
}

func TestRender_DefaultFlavorMatchesQuickstartExample(t *testing.T) {
	raw, err := Load(DefaultFlavor)
	require.NoError(t, err)
	rendered, err := Render(raw, Values{Flags: quickstartFlags, Env: noEnv, FlagDefaults: flagDefaults})
	require.NoError(t, err)

	example, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "quickstart.yaml"))
	require.NoError(t, err)

	got, err := Objects(rendered)
	require.NoError(t, err)
	want, err := Objects(example)
	require.NoError(t, err)
	require.NotEmpty(t, want)
	if d := cmp.Diff(asMaps(want), asMaps(got)); d != "" {
		t.Errorf("generate cluster quickstart differs from examples/quickstart.yaml (-example +generated):\n%s", d)
	}
}

// The development flavor is upstream's: a topology Cluster of the class quick-start, with the
// class's variables; examples/cluster-development.yaml is what it renders by default.
func TestRender_DevelopmentFlavorMatchesDevelopmentExample(t *testing.T) {
	raw, err := Load("development")
	require.NoError(t, err)
	flags := map[string]string{}
	for k, v := range quickstartFlags {
		flags[k] = v
	}
	flags["CLUSTER_NAME"] = "development"
	rendered, err := Render(raw, Values{Flags: flags, Env: noEnv, FlagDefaults: flagDefaults})
	require.NoError(t, err)
	example, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "cluster-development.yaml"))
	require.NoError(t, err)
	got, err := Objects(rendered)
	require.NoError(t, err)
	want, err := Objects(example)
	require.NoError(t, err)
	if d := cmp.Diff(asMaps(want), asMaps(got)); d != "" {
		t.Errorf("generate cluster development --flavor development differs from examples/cluster-development.yaml (-example +generated):\n%s", d)
	}

	cluster := &clusterv1.Cluster{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(got[0].Object, cluster, true))
	require.Equal(t, "quick-start", cluster.Spec.Topology.ClassRef.Name)
	var names []string
	for _, v := range cluster.Spec.Topology.Variables {
		names = append(names, v.Name)
	}
	require.Equal(t, []string{"imageRepository", "etcdImageTag", "coreDNSImageTag", "podSecurityStandard"}, names)

	// Upstream's environment variable turns the Pod Security Standard patches off.
	rendered, err = Render(raw, Values{Flags: flags, FlagDefaults: flagDefaults, Env: func(name string) (string, bool) {
		return "false", name == "POD_SECURITY_STANDARD_ENABLED"
	}})
	require.NoError(t, err)
	require.Contains(t, string(rendered), "enabled: false")
}

// The development-mp flavor is upstream's: the development flavor's Cluster whose workers are one
// MachinePool of the class default-worker.
func TestRender_DevelopmentMPFlavorIsATopologyWithAMachinePool(t *testing.T) {
	raw, err := Load("development-mp")
	require.NoError(t, err)
	rendered, err := Render(raw, Values{Flags: quickstartFlags, Env: noEnv, FlagDefaults: flagDefaults})
	require.NoError(t, err)
	objs, err := Objects(rendered)
	require.NoError(t, err)
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
	}
	require.Equal(t, []string{"Cluster", "ClusterResourceSet", "ConfigMap"}, kinds, "the Cluster and its CNI: the class generates the rest")
	cluster := &clusterv1.Cluster{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(objs[0].Object, cluster, true))
	require.Equal(t, "quick-start", cluster.Spec.Topology.ClassRef.Name)
	require.Empty(t, cluster.Spec.Topology.Workers.MachineDeployments)
	require.Len(t, cluster.Spec.Topology.Workers.MachinePools, 1)
	mp := cluster.Spec.Topology.Workers.MachinePools[0]
	require.Equal(t, "default-worker", mp.Class)
	require.Equal(t, "mp-0", mp.Name)
	require.NotNil(t, mp.Replicas)
	require.Equal(t, quickstartFlags["WORKER_MACHINE_COUNT"], fmt.Sprint(*mp.Replicas))
	require.Len(t, cluster.Spec.Topology.Variables, 4)
}

func asMaps(objs []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Object)
	}
	return out
}

func TestRender_MachinePoolFlavorDecodesIntoCoreTypes(t *testing.T) {
	raw, err := Load("machinepool")
	require.NoError(t, err)
	rendered, err := Render(raw, Values{Flags: map[string]string{
		"CLUSTER_NAME": "pool", "KUBERNETES_VERSION": "v1.37.2", "CONTROL_PLANE_MACHINE_COUNT": "3", "WORKER_MACHINE_COUNT": "2",
	}, Env: noEnv, FlagDefaults: flagDefaults})
	require.NoError(t, err)
	objs, err := Objects(rendered)
	require.NoError(t, err)

	kinds := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		kinds[o.GetKind()] = o
		require.Equal(t, "default", o.GetNamespace(), "%s %s", o.GetKind(), o.GetName())
	}
	require.NotContains(t, kinds, "MachineDeployment")
	require.Contains(t, kinds, "KubeadmConfig")
	require.Equal(t, "infrastructure.cluster.x-k8s.io/v1beta2", kinds["DockerMachinePool"].GetAPIVersion())
	tmpl, found, err := unstructured.NestedMap(kinds["DockerMachinePool"].Object, "spec", "template")
	require.NoError(t, err)
	require.True(t, found)
	require.Empty(t, tmpl)

	mp := &clusterv1.MachinePool{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(kinds["MachinePool"].Object, mp, true))
	require.Equal(t, "pool", mp.Spec.ClusterName)
	require.Equal(t, int32(2), *mp.Spec.Replicas)
	require.Equal(t, clusterv1.ContractVersionedObjectReference{
		APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "pool-mp-0"}, mp.Spec.Template.Spec.Bootstrap.ConfigRef)
	require.Equal(t, "DockerMachinePool", mp.Spec.Template.Spec.InfrastructureRef.Kind)
	require.Equal(t, "pool-mp-0", kinds["KubeadmConfig"].GetName())

	cluster := &clusterv1.Cluster{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(kinds["Cluster"].Object, cluster, true))
	require.Equal(t, "pool-control-plane", cluster.Spec.ControlPlaneRef.Name)
	replicas, _, err := unstructured.NestedInt64(kinds["KubeadmControlPlane"].Object, "spec", "replicas")
	require.NoError(t, err)
	require.Equal(t, int64(3), replicas)
}

func TestRender_EveryFlavorRendersWithOnlyTheCLIVariables(t *testing.T) {
	for _, flavor := range Flavors() {
		t.Run("flavor="+flavor, func(t *testing.T) {
			raw, err := Load(flavor)
			require.NoError(t, err)
			_, err = Render(raw, Values{Flags: quickstartFlags, Env: noEnv, FlagDefaults: flagDefaults})
			require.NoError(t, err)
		})
	}
}

func TestRender_ReportsEveryMissingVariableAtOnce(t *testing.T) {
	raw := []byte("a: ${ZED}\nb: ${ALPHA}\nc: ${ZED}\nd: ${WITH_DEFAULT:=x}\n")
	_, err := Substitute(raw, Values{Env: noEnv})
	var missing *MissingVariablesError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, []string{"ALPHA", "ZED"}, missing.Names)
	require.Contains(t, err.Error(), "ALPHA, ZED")
	require.Contains(t, err.Error(), "--list-variables")
}

func TestRender_Precedence(t *testing.T) {
	raw := []byte("v: ${V:=inline}\n")
	env := func(vals map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vals[k]; return v, ok }
	}
	tests := []struct {
		name   string
		raw    []byte
		values Values
		want   string
	}{
		{"ExplicitFlagBeatsEnv", raw, Values{Flags: map[string]string{"V": "flag"}, Env: env(map[string]string{"V": "env"})}, "v: flag\n"},
		{"EnvBeatsInlineDefault", raw, Values{Env: env(map[string]string{"V": "env"})}, "v: env\n"},
		{"EmptyEnvFallsBackToInlineDefault", raw, Values{Env: env(map[string]string{"V": ""})}, "v: inline\n"},
		{"InlineDefaultBeatsFlagDefault", raw, Values{Env: noEnv, FlagDefaults: map[string]string{"V": "flagdefault"}}, "v: inline\n"},
		{"EnvBeatsFlagDefault", []byte("v: ${V}\n"), Values{Env: env(map[string]string{"V": "env"}), FlagDefaults: map[string]string{"V": "flagdefault"}}, "v: env\n"},
		{"FlagDefaultWhenNothingElse", []byte("v: ${V}\n"), Values{Env: noEnv, FlagDefaults: map[string]string{"V": "flagdefault"}}, "v: flagdefault\n"},
		{"DashDefaultSyntax", []byte("v: ${V:-dash}\n"), Values{Env: noEnv}, "v: dash\n"},
		{"EmptyInlineDefault", []byte("v: '${V:=}'\n"), Values{Env: noEnv}, "v: ''\n"},
		{"EmptyEnvWithoutDefaultIsAValue", []byte("v: '${V}'\n"), Values{Env: env(map[string]string{"V": ""})}, "v: ''\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Substitute(tt.raw, tt.values)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
		})
	}
}

func TestRender_RejectsMalformedExpressionsAndBrokenYAML(t *testing.T) {
	_, err := Substitute([]byte("v: ${not-a-name}\n"), Values{Env: noEnv})
	require.ErrorContains(t, err, "${not-a-name}")

	_, err = Render([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${NAME}\n"),
		Values{Flags: map[string]string{"NAME": "a: b: c"}})
	require.ErrorContains(t, err, "not valid YAML")
}

func TestLoad_UnknownFlavorListsTheAvailableOnes(t *testing.T) {
	_, err := Load("nope")
	require.Error(t, err)
	require.Contains(t, err.Error(), `unknown flavor "nope"`)
	require.Contains(t, err.Error(), `"machinepool"`)
	require.Contains(t, err.Error(), "default")

	_, err = Load("../templates/cluster-template")
	require.ErrorContains(t, err, "unknown flavor")
}

func TestFlavors_ListsDefaultDevelopmentDevelopmentMPAndMachinePool(t *testing.T) {
	require.Equal(t, []string{"", "development", "development-mp", "machinepool"}, Flavors())
}

func TestVariables_ListsRequiredAndDefaults(t *testing.T) {
	raw, err := Load(DefaultFlavor)
	require.NoError(t, err)
	vars, err := Variables(raw)
	require.NoError(t, err)
	got := map[string]string{}
	for _, v := range vars {
		if v.Default == nil {
			got[v.Name] = "<required>"
		} else {
			got[v.Name] = *v.Default
		}
	}
	require.Equal(t, map[string]string{
		"CLUSTER_NAME": "<required>", "NAMESPACE": "<required>", "KUBERNETES_VERSION": "<required>",
		"CONTROL_PLANE_MACHINE_COUNT": "<required>", "WORKER_MACHINE_COUNT": "<required>",
		"POD_CIDR": "10.244.0.0/16", "SERVICE_CIDR": "10.128.0.0/12", "SERVICE_DOMAIN": "cluster.local",
	}, got)
}

func TestObjects_SkipsCommentOnlyDocuments(t *testing.T) {
	objs, err := Objects([]byte("# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  n: '1'\n---\n"))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	_, err = Objects([]byte("metadata:\n  name: a\n"))
	require.ErrorContains(t, err, "Kind")
}
