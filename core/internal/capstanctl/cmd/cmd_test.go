package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/describe"
	"capstan.dev/core/internal/capstanctl/providers"
	"capstan.dev/core/internal/capstanctl/template"
	"capstan.dev/core/internal/capstanctl/version"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

type result struct {
	stdout, stderr string
	code           int
}

// run executes capstanctl in-process. KUBECONFIG points nowhere, so a command
// that should not need a cluster cannot reach one by accident.
func run(t *testing.T, args ...string) result {
	t.Helper()
	stdout, stderr, code := ctltest.Run(t, Execute, args...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// kubeconfigFile writes the envtest API server's kubeconfig for --kubeconfig.
func kubeconfigFile(t *testing.T) string {
	t.Helper()
	return ctltest.KubeconfigFile(t, env)
}

// runOnCluster is run against the envtest API server through --kubeconfig.
func runOnCluster(t *testing.T, args ...string) result {
	t.Helper()
	return run(t, append(args, "--kubeconfig", kubeconfigFile(t))...)
}

func TestVersion_PrintsBuildInfoAsJSONYAMLAndShort(t *testing.T) {
	old := version.Version
	version.Version = "v1.2.3"
	t.Cleanup(func() { version.Version = old })

	r := run(t, "version", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var info version.Info
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &info))
	require.Equal(t, "v1.2.3", info.Version)
	require.NotEmpty(t, info.GitCommit)
	require.True(t, strings.HasPrefix(info.GoVersion, "go"), info.GoVersion)
	require.Contains(t, info.Platform, "/")

	r = run(t, "version", "-o", "yaml")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "version: v1.2.3\n")

	r = run(t, "version", "-o", "short")
	require.Equal(t, "v1.2.3\n", r.stdout)

	r = run(t, "version")
	require.True(t, strings.HasPrefix(r.stdout, "capstanctl v1.2.3 (commit "), r.stdout)

	r = run(t, "version", "-o", "xml")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `unknown output format "xml": use -o yaml|json|short`)
}

func TestCompletion_PrintsAScriptForEverySupportedShell(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := run(t, "completion", shell)
		require.Equal(t, 0, r.code, "%s: %s", shell, r.stderr)
		require.Contains(t, r.stdout, "capstanctl", shell)
	}
}

func TestCompletion_UnknownOrMissingShellListsTheSupportedOnes(t *testing.T) {
	r := run(t, "completion", "tcsh")
	require.Equal(t, 1, r.code)
	require.Equal(t, "Error: unsupported shell \"tcsh\": supported shells are bash, zsh, fish, powershell\n", r.stderr)
	require.Empty(t, r.stdout)

	r = run(t, "completion")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "one of: bash, zsh, fish, powershell")
}

func TestRoot_UnknownCommandsAndFlagsFail(t *testing.T) {
	r := run(t, "frobnicate")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `unknown command "frobnicate"`)

	r = run(t, "describe", "cluster", "a", "--bogus")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "unknown flag: --bogus: see 'capstanctl describe cluster --help'")

	r = run(t, "describe")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "needs a subcommand: [cluster]")

	r = run(t, "get", "kubeconfig")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "needs the Cluster name")
}

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			b, err := os.ReadFile(filepath.Join(dir, rel))
			require.NoError(t, err)
			return b
		}
		require.NotEqual(t, dir, filepath.Dir(dir), "no go.work above the package")
		dir = filepath.Dir(dir)
	}
}

func objects(t *testing.T, data string) map[string]*unstructured.Unstructured {
	t.Helper()
	objs, err := template.Objects([]byte(data))
	require.NoError(t, err)
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		out[o.GetKind()+"/"+o.GetName()] = o
	}
	return out
}

func TestGenerateCluster_QuickstartFlagsGiveTheQuickstartExample(t *testing.T) {
	r := run(t, "generate", "cluster", "quickstart", "--kubernetes-version", "v1.37.2",
		"--control-plane-machine-count", "1", "--worker-machine-count", "1")
	require.Equal(t, 0, r.code, r.stderr)
	want := objects(t, string(repoFile(t, "examples/quickstart.yaml")))
	got := objects(t, r.stdout)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("generated objects differ from examples/quickstart.yaml (-example +generated):\n%s", d)
	}
}

func replicas(t *testing.T, objs map[string]*unstructured.Unstructured, key string) int64 {
	t.Helper()
	require.Contains(t, objs, key)
	n, found, err := unstructured.NestedInt64(objs[key].Object, "spec", "replicas")
	require.NoError(t, err)
	require.True(t, found)
	return n
}

func TestGenerateCluster_FlagsBeatEnvironmentWhichBeatsDefaults(t *testing.T) {
	t.Setenv("WORKER_MACHINE_COUNT", "3")
	t.Setenv("CONTROL_PLANE_MACHINE_COUNT", "5")
	t.Setenv("POD_CIDR", "192.168.0.0/16")
	t.Setenv("NAMESPACE", "from-env")
	var stdout, stderr bytes.Buffer
	code := Execute(context.Background(), []string{"generate", "cluster", "dev", "--control-plane-machine-count", "3"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	objs := objects(t, stdout.String())
	require.Equal(t, int64(3), replicas(t, objs, "MachineDeployment/dev-md-0"), "env WORKER_MACHINE_COUNT beats the flag default")
	require.Equal(t, int64(3), replicas(t, objs, "KubeadmControlPlane/dev-control-plane"), "an explicit flag beats env")
	require.Equal(t, "from-env", objs["Cluster/dev"].GetNamespace())
	pods, _, _ := unstructured.NestedStringSlice(objs["Cluster/dev"].Object, "spec", "clusterNetwork", "pods", "cidrBlocks")
	require.Equal(t, []string{"192.168.0.0/16"}, pods)
	services, _, _ := unstructured.NestedStringSlice(objs["Cluster/dev"].Object, "spec", "clusterNetwork", "services", "cidrBlocks")
	require.Equal(t, []string{"10.128.0.0/12"}, services, "inline default")
	version, _, _ := unstructured.NestedString(objs["KubeadmControlPlane/dev-control-plane"].Object, "spec", "version")
	require.Equal(t, "v1.37.2", version, "flag default")
}

func TestGenerateCluster_MachinePoolFlavor(t *testing.T) {
	r := run(t, "generate", "cluster", "pool", "--flavor", "machinepool", "--worker-machine-count", "4", "--target-namespace", "dev")
	require.Equal(t, 0, r.code, r.stderr)
	objs := objects(t, r.stdout)
	require.Equal(t, int64(4), replicas(t, objs, "MachinePool/pool-mp-0"))
	require.Contains(t, objs, "KubeadmConfig/pool-mp-0")
	require.Contains(t, objs, "DockerMachinePool/pool-mp-0")
	for key, o := range objs {
		require.Equal(t, "dev", o.GetNamespace(), key)
	}
}

func TestGenerateCluster_Errors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"UnknownFlavorListsFlavors", []string{"generate", "cluster", "a", "--flavor", "huge"}, `unknown flavor "huge": available flavors are "" (default, omit --flavor), "development", "development-mp", "machinepool"`},
		{"MissingName", []string{"generate", "cluster"}, "needs the Cluster name"},
		{"InvalidName", []string{"generate", "cluster", "Not_A_Name"}, `cluster name "Not_A_Name" is invalid`},
		{"BadVersion", []string{"generate", "cluster", "a", "--kubernetes-version", "1.37"}, `--kubernetes-version "1.37" is not a Kubernetes version`},
		{"NegativeCount", []string{"generate", "cluster", "a", "--worker-machine-count", "-1"}, "cannot be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			require.Equal(t, 1, r.code)
			require.Contains(t, r.stderr, tt.want)
			require.Empty(t, r.stdout)
		})
	}
}

func TestGenerateCluster_ListVariables(t *testing.T) {
	r := run(t, "generate", "cluster", "--list-variables", "--flavor", "machinepool")
	require.Equal(t, 0, r.code, r.stderr)
	req, opt, ok := strings.Cut(r.stdout, "Optional variables:")
	require.True(t, ok, r.stdout)
	require.Contains(t, req, "Required variables:")
	require.Regexp(t, `CLUSTER_NAME\s+\(set by the NAME argument\)`, req)
	require.Regexp(t, `KUBERNETES_VERSION\s+\(set by --kubernetes-version\)`, req)
	require.Regexp(t, `POD_CIDR\s+\(default "10.244.0.0/16"\)`, opt)
	require.Regexp(t, `SERVICE_DOMAIN\s+\(default "cluster.local"\)`, opt)
}

func TestProvidersList_NeedsNoCluster(t *testing.T) {
	r := run(t, "providers", "list", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var ps []providers.Provider
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ps))
	var names []string
	for _, p := range ps {
		names = append(names, p.Name+"/"+p.Type)
		require.Equal(t, "v1beta2", p.Contract)
		require.Equal(t, version.Get().Version, p.Version)
		require.Nil(t, p.Installed, "not checked without --installed")
	}
	require.Equal(t, []string{"cluster-api/CoreProvider", "kubeadm/BootstrapProvider", "kubeadm/ControlPlaneProvider",
		"docker/InfrastructureProvider"}, names)

	r = run(t, "providers", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "NAME         TYPE")
	require.NotContains(t, r.stdout, "INSTALLED")
}

func TestProvidersList_InstalledChecksTheCRDsAndTheirContractLabel(t *testing.T) {
	r := runOnCluster(t, "providers", "list", "--installed", "-o", "yaml")
	require.Equal(t, 0, r.code, r.stderr)
	var ps []providers.Provider
	require.NoError(t, yaml.Unmarshal([]byte(r.stdout), &ps))
	require.True(t, *ps[0].Installed, "envtest has the core CRDs: %+v", ps[0].CRDs)
	for _, p := range ps[1:] {
		require.False(t, *p.Installed, "envtest has no %s CRDs", p.Name)
		require.Equal(t, "CRD not found", p.CRDs[0].Problem)
	}

	r = runOnCluster(t, "providers", "list", "--installed")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "INSTALLED")
	require.Contains(t, r.stdout, "kubeadm BootstrapProvider: kubeadmconfigs.bootstrap.cluster.x-k8s.io: CRD not found")

	r = run(t, "providers", "list", "--installed")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "pass --kubeconfig or set KUBECONFIG")
}

// describedCluster creates Cluster c1 in a fresh namespace with a control plane
// Machine and two equal MachineDeployment Machines.
func describedCluster(t *testing.T) string {
	t.Helper()
	ns := env.CreateNamespace(t, "capstanctl")
	c := ctltest.Cluster(t, env, ns, "c1",
		ctltest.Condition(clusterv1.AvailableCondition, metav1.ConditionFalse, "NotAvailable", "* WorkersAvailable: scaling up\n* detail", 150*time.Second))
	ready := ctltest.Condition(clusterv1.ReadyCondition, metav1.ConditionTrue, "Ready", "", 5*time.Hour)
	ctltest.Machine(t, env, c, "c1-cp-0", map[string]string{clusterv1.MachineControlPlaneLabel: ""}, ready)
	ctltest.MachineDeployment(t, env, c, "c1-md-0")
	for _, n := range []string{"c1-md-0-x", "c1-md-0-y"} {
		ctltest.Machine(t, env, c, n, map[string]string{clusterv1.MachineDeploymentNameLabel: "c1-md-0"}, ready)
	}
	return ns
}

func TestDescribeCluster_PrintsTheTree(t *testing.T) {
	ns := describedCluster(t)
	r := runOnCluster(t, "describe", "cluster", "c1", "-n", ns)
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 8, r.stdout)
	require.Regexp(t, `^NAME\s+READY\s+REASON\s+SINCE\s+MESSAGE$`, lines[0])
	require.Regexp(t, `^Cluster/c1\s+False\s+NotAvailable\s+2m\d+s\s+\* WorkersAvailable: scaling up \.\.\.$`, lines[1])
	require.Regexp(t, `^├─ClusterInfrastructure - GenericInfrastructureCluster/c1$`, lines[2])
	require.Regexp(t, `^├─ControlPlane - GenericControlPlane/c1$`, lines[3])
	require.Regexp(t, `^│ └─Machine/c1-cp-0\s+True\s+Ready\s+5h$`, lines[4])
	require.Regexp(t, `^└─Workers$`, lines[5])
	require.Regexp(t, `^  └─MachineDeployment/c1-md-0$`, lines[6])
	require.Regexp(t, `^    └─2 Machines\.\.\.\s+True\s+Ready\s+5h\s+See c1-md-0-x, c1-md-0-y$`, lines[7])

	r = runOnCluster(t, "describe", "cluster", "c1", "-n", ns, "--grouping=false")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "    ├─Machine/c1-md-0-x")
	require.Contains(t, r.stdout, "    └─Machine/c1-md-0-y")
}

func TestDescribeCluster_DataOutputIsTheSameTree(t *testing.T) {
	ns := describedCluster(t)
	for _, format := range []string{"json", "yaml"} {
		r := runOnCluster(t, "describe", "cluster", "c1", "-n", ns, "-o", format, "--show-conditions", "Cluster")
		require.Equal(t, 0, r.code, r.stderr)
		var root describe.Node
		require.NoError(t, yaml.Unmarshal([]byte(r.stdout), &root), format) // YAML is a superset of JSON
		require.Equal(t, "Cluster", root.Kind)
		require.Equal(t, ns, root.Namespace)
		require.Equal(t, metav1.ConditionFalse, root.Ready)
		require.Equal(t, "* WorkersAvailable: scaling up\n* detail", root.Message, "data keeps the whole message")
		require.Len(t, root.Conditions, 1)
		require.NotNil(t, root.Since)
		md := root.Children[2].Children[0]
		require.Equal(t, "MachineDeployment", md.Kind)
		require.Len(t, md.Children, 1)
		require.Equal(t, []string{"c1-md-0-x", "c1-md-0-y"}, md.Children[0].GroupedNames)
	}
	r := runOnCluster(t, "describe", "cluster", "c1", "-n", ns, "-o", "json")
	require.Regexp(t, `"since": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`, r.stdout)
}

func TestDescribeCluster_Errors(t *testing.T) {
	r := runOnCluster(t, "describe", "cluster", "nope", "-n", "default")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "cluster default/nope not found: list clusters with 'kubectl get clusters -A'")

	r = runOnCluster(t, "describe", "cluster", "nope", "--show-conditions", "Machine/")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "--show-conditions")
}

func kubeconfigSecret(t *testing.T, c *clusterv1.Cluster, data []byte) {
	t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: secret.Name(c.Name, secret.Kubeconfig)},
		Type:       clusterv1.ClusterSecretType,
		Data:       map[string][]byte{secret.KubeconfigDataName: data},
	}
	require.NoError(t, env.Client.Create(context.Background(), s))
}

func serverOf(t *testing.T, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	require.NoError(t, err)
	ctx := cfg.Contexts[cfg.CurrentContext]
	require.NotNil(t, ctx, "current context %q", cfg.CurrentContext)
	return cfg.Clusters[ctx.Cluster].Server
}

func TestGetKubeconfig_RewritesTheServerToTheControlPlaneEndpoint(t *testing.T) {
	ns := env.CreateNamespace(t, "capstanctl")
	c := ctltest.Cluster(t, env, ns, "wl")
	kubeconfigSecret(t, c, env.KubeConfig)

	r := runOnCluster(t, "get", "kubeconfig", "wl", "-n", ns)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, string(env.KubeConfig), r.stdout, "no endpoint yet: the Secret as is")

	envtest.Update(t, env.Client, c, func() {
		c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 40123}
	})
	r = runOnCluster(t, "get", "kubeconfig", "wl", "-n", ns)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "https://127.0.0.1:40123", serverOf(t, r.stdout))
	require.NotEqual(t, "https://127.0.0.1:40123", serverOf(t, string(env.KubeConfig)))

	r = runOnCluster(t, "get", "kubeconfig", "wl", "-n", ns, "--server", "https://lb.example:6443")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "https://lb.example:6443", serverOf(t, r.stdout))

	r = runOnCluster(t, "get", "kubeconfig", "wl", "-n", ns, "--server", "lb.example:6443")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "https://host:port")
}

func TestGetKubeconfig_MissingSecretSaysTheControlPlaneHasNotWrittenIt(t *testing.T) {
	ns := env.CreateNamespace(t, "capstanctl")
	ctltest.Cluster(t, env, ns, "young")
	r := runOnCluster(t, "get", "kubeconfig", "young", "-n", ns)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "has not written its kubeconfig yet")
	require.Contains(t, r.stderr, "'capstanctl describe cluster young -n "+ns+"'")
	require.Empty(t, r.stdout)

	r = runOnCluster(t, "get", "kubeconfig", "absent", "-n", ns)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "kubectl get clusters -A")
}

func clusterGone(t *testing.T, ns, name string) bool {
	t.Helper()
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &clusterv1.Cluster{})
	return apierrors.IsNotFound(err)
}

func TestDeleteCluster_WithoutWaitRequestsDeletion(t *testing.T) {
	ns := env.CreateNamespace(t, "capstanctl")
	ctltest.Cluster(t, env, ns, "bye")
	r := runOnCluster(t, "delete", "cluster", "bye", "-n", ns)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "deletion requested")
	require.True(t, clusterGone(t, ns, "bye"))

	r = runOnCluster(t, "delete", "cluster", "bye", "-n", ns)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "cluster "+ns+"/bye not found")
}

func TestDeleteCluster_WaitReturnsOnceTheClusterIsGone(t *testing.T) {
	ns := env.CreateNamespace(t, "capstanctl")
	ctltest.Cluster(t, env, ns, "bye")
	r := runOnCluster(t, "delete", "cluster", "bye", "-n", ns, "--wait", "--timeout", "30s")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Cluster "+ns+"/bye deleted\n")
	require.True(t, clusterGone(t, ns, "bye"))
}

const holdFinalizer = "test.capstan.dev/hold"

// heldCluster creates a Cluster whose finalizer keeps it after deletion, and
// releases it when the test ends.
func heldCluster(t *testing.T, ns, name string, conds ...metav1.Condition) *clusterv1.Cluster {
	t.Helper()
	c := ctltest.Cluster(t, env, ns, name, conds...)
	envtest.Update(t, env.Client, c, func() { controllerutil.AddFinalizer(c, holdFinalizer) })
	t.Cleanup(func() { release(t, c) })
	return c
}

func release(t *testing.T, c *clusterv1.Cluster) {
	t.Helper()
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(c), c)
	if apierrors.IsNotFound(err) {
		return
	}
	envtest.Update(t, env.Client, c, func() { controllerutil.RemoveFinalizer(c, holdFinalizer) })
}

func TestDeleteCluster_WaitTimesOutNamingWhatRemains(t *testing.T) {
	ns := env.CreateNamespace(t, "capstanctl")
	c := heldCluster(t, ns, "stuck", ctltest.Condition(clusterv1.ClusterDeletingCondition, metav1.ConditionTrue,
		clusterv1.ClusterDeletingWaitingForWorkersDeletionReason, "* Machines: stuck-md-0-a\n* MachineDeployments: stuck-md-0", time.Second))
	ctltest.Machine(t, env, c, "stuck-md-0-a", nil)

	start := time.Now()
	r := runOnCluster(t, "delete", "cluster", "stuck", "-n", ns, "--wait", "--timeout", "3s")
	require.Equal(t, 1, r.code, r.stdout)
	require.Less(t, time.Since(start), 20*time.Second)
	require.Contains(t, r.stderr, "Cluster "+ns+"/stuck still exists after 3s")
	require.Contains(t, r.stderr, "finalizers: "+holdFinalizer)
	require.Contains(t, r.stderr, "Machines: stuck-md-0-a")
	require.Contains(t, r.stderr, `Deleting condition: "* Machines: stuck-md-0-a * MachineDeployments: stuck-md-0"`)
	require.Contains(t, r.stderr, "'capstanctl describe cluster stuck -n "+ns+" --show-conditions all'")
	require.Equal(t, 1, strings.Count(r.stdout, "is being deleted:"), "nothing changed, so one progress line:\n%s", r.stdout)
	require.False(t, clusterGone(t, ns, "stuck"))
}

func TestDeleteCluster_WaitPrintsProgressWhenMachinesOrTheDeletingMessageChange(t *testing.T) {
	ns := env.CreateNamespace(t, "capstanctl")
	c := heldCluster(t, ns, "slow")
	m := ctltest.Machine(t, env, c, "slow-md-0-a", nil)

	var stdout, stderr ctltest.SyncBuffer
	done := make(chan int, 1)
	kc := kubeconfigFile(t)
	go func() {
		done <- Execute(context.Background(), []string{"delete", "cluster", "slow", "-n", ns, "--wait", "--timeout", "60s",
			"--poll-interval", "100ms", "--kubeconfig", kc}, &stdout, &stderr)
	}()
	waitOutput := func(want string) {
		t.Helper()
		envtest.WaitFor(t, 30*time.Second, "output "+want, func() (bool, error) {
			return strings.Contains(stdout.String(), want), nil
		})
	}
	waitOutput("no Deleting condition yet; 1 Machine(s) left: slow-md-0-a")

	envtest.UpdateStatus(t, env.Client, c, func() {
		c.Status.Conditions = []metav1.Condition{ctltest.Condition(clusterv1.ClusterDeletingCondition, metav1.ConditionTrue,
			clusterv1.ClusterDeletingWaitingForWorkersDeletionReason, "waiting for Machines", 0)}
	})
	waitOutput("Deleting: waiting for Machines; 1 Machine(s) left: slow-md-0-a")

	require.NoError(t, env.Client.Delete(context.Background(), m))
	waitOutput("Deleting: waiting for Machines; no Machines left")

	release(t, c)
	select {
	case code := <-done:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("delete --wait did not return after the Cluster went away:\n%s", stdout.String())
	}
	require.Contains(t, stdout.String(), "Cluster "+ns+"/slow deleted\n")
	require.Equal(t, 3, strings.Count(stdout.String(), "is being deleted:"), "one line per change:\n%s", stdout.String())
}
