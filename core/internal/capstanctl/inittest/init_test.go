package inittest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/devcreds"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(envtest.Run(m, envtest.Options{}, &env)) }

type result struct {
	stdout, stderr string
	code           int
}

// run executes capstanctl in-process; KUBECONFIG points nowhere, so only --kubeconfig
// reaches a cluster.
func run(t *testing.T, args ...string) result {
	t.Helper()
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, args...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

func kubeconfigFile(t *testing.T) string {
	t.Helper()
	return ctltest.KubeconfigFile(t, env)
}

// installed reads every object of the components back, keyed by kind/namespace/name.
func installed(t *testing.T, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(o.GroupVersionKind())
		require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), got), "%s %s", o.GetKind(), o.GetName())
		out[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = got
	}
	return out
}

func resourceVersions(objs map[string]*unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	for k, o := range objs {
		out[k] = o.GetResourceVersion()
	}
	return out
}

func deployment(t *testing.T, p components.Provider) *appsv1.Deployment {
	t.Helper()
	objs, err := p.Objects()
	require.NoError(t, err)
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			d := &appsv1.Deployment{}
			require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), d))
			return d
		}
	}
	t.Fatalf("provider %s has no Deployment", p.Name)
	return nil
}

func TestInit_InstallsEveryProviderAndASecondRunChangesNothing(t *testing.T) {
	ctx := context.Background()
	kc := kubeconfigFile(t)
	r := run(t, "init", "--kubeconfig", kc, "--image-tag", "t1")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Installing providers core, kubeadm, docker into the management cluster at https://127.0.0.1:")
	require.Contains(t, r.stdout, "Namespace capstan-system created\n")
	require.Contains(t, r.stdout, "CustomResourceDefinition clusters.cluster.x-k8s.io configured\n",
		"envtest installed the core CRDs without the labels config/default adds")
	require.Contains(t, r.stdout, "CustomResourceDefinition kubeadmconfigs.bootstrap.cluster.x-k8s.io created\n")
	require.Contains(t, r.stdout, "30 CustomResourceDefinitions established\n")
	require.Contains(t, r.stdout, "MutatingAdmissionPolicy cluster-api-machinedeployment-defaults created\n")
	require.Contains(t, r.stdout, "ValidatingAdmissionPolicy cluster-api-clusters.cluster.x-k8s.io-v1beta2-rules created\n")
	require.Contains(t, r.stdout, "11 MutatingAdmissionPolicies and 31 ValidatingAdmissionPolicies in effect\n")
	require.Contains(t, r.stdout, "Deployment capstan-docker-system/infrastructure-docker-controller-manager created\n")
	require.Less(t, strings.Index(r.stdout, "Namespace capstan-docker-system created"),
		strings.Index(r.stdout, "CustomResourceDefinition clusters.cluster.x-k8s.io"), "namespaces first")
	require.Less(t, strings.Index(r.stdout, "established"), strings.Index(r.stdout, "ServiceAccount"), "CRDs established before the rest")
	require.Less(t, strings.Index(r.stdout, "RoleBinding"), strings.Index(r.stdout, "Deployment"), "RBAC before the managers")

	objs, err := components.Load(components.All)
	require.NoError(t, err)
	first := installed(t, objs)
	kinds := map[string]int{}
	for _, o := range first {
		kinds[o.GetKind()]++
		require.Equal(t, "capstanctl", managerOf(o), "%s %s is applied by capstanctl", o.GetKind(), o.GetName())
	}
	// Services: the conversion webhooks of the core, bootstrap-kubeadm and docker managers.
	require.Equal(t, map[string]int{"Namespace": 3, "CustomResourceDefinition": 29, "ServiceAccount": 3, "ClusterRole": 4,
		"ClusterRoleBinding": 4, "Role": 4, "RoleBinding": 4, "Deployment": 3, "Service": 3,
		"MutatingAdmissionPolicy": 11, "MutatingAdmissionPolicyBinding": 11,
		"ValidatingAdmissionPolicy": 31, "ValidatingAdmissionPolicyBinding": 31}, kinds)

	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	require.NoError(t, env.Client.List(ctx, crds, client.HasLabels{"cluster.x-k8s.io/provider"}))
	require.Len(t, crds.Items, 29)
	for _, crd := range crds.Items {
		require.Equal(t, "v1beta2", crd.Labels["cluster.x-k8s.io/v1beta2"], "contract label on %s", crd.Name)
		established := false
		for _, c := range crd.Status.Conditions {
			established = established || (c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue)
		}
		require.True(t, established, "%s is Established", crd.Name)
	}

	for _, p := range components.All {
		d := deployment(t, p)
		pod := d.Spec.Template.Spec
		c := pod.Containers[0]
		require.Equal(t, "capstan/"+p.Module+"-manager:t1", c.Image)
		require.Equal(t, p.Namespace, d.Namespace)
		require.Contains(t, c.Args, "--leader-elect")
		require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
		require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
		require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
		require.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
		require.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
		require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, pod.SecurityContext.SeccompProfile.Type)
		if p.Name == "docker" {
			require.Equal(t, int64(0), *pod.SecurityContext.RunAsUser, "the Docker socket needs its owner (see manager.yaml)")
			require.Equal(t, "/var/run/docker.sock", pod.Volumes[0].HostPath.Path)
		} else {
			require.True(t, *pod.SecurityContext.RunAsNonRoot)
			require.Equal(t, int64(65532), *pod.SecurityContext.RunAsUser)
		}
		sa := &corev1.ServiceAccount{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: pod.ServiceAccountName}, sa))
	}

	r = run(t, "init", "--kubeconfig", kc, "--image-tag", "t1")
	require.Equal(t, 0, r.code, r.stderr)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.HasPrefix(line, "Installing") || strings.HasSuffix(line, "established") || strings.HasSuffix(line, "in effect") ||
			strings.HasPrefix(line, "Managers deployed") {
			continue
		}
		require.True(t, strings.HasSuffix(line, " unchanged"), "second run: %q", line)
	}
	require.Equal(t, resourceVersions(first), resourceVersions(installed(t, objs)), "a second run writes nothing")

	require.Equal(t, map[string]string{
		"capstan-system/cluster-api":                             "cluster-api CoreProvider v0.0.0-dev",
		"capstan-kubeadm-bootstrap-system/bootstrap-kubeadm":     "kubeadm BootstrapProvider v0.0.0-dev",
		"capstan-kubeadm-bootstrap-system/control-plane-kubeadm": "kubeadm ControlPlaneProvider v0.0.0-dev",
		"capstan-docker-system/infrastructure-docker":            "docker InfrastructureProvider v0.0.0-dev",
	}, inventory(t), "a tag that is no release version is recorded as v0.0.0-dev")

	r = run(t, "init", "--kubeconfig", kc, "--image-tag", "v0.3.0", "--providers", "core")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Deployment capstan-system/cluster-api-controller-manager configured\n")
	require.Contains(t, r.stdout, "ServiceAccount capstan-system/cluster-api-manager unchanged\n")
	require.Contains(t, r.stdout, "Provider capstan-system/cluster-api configured\n")
	require.NotContains(t, r.stdout, "capstan-docker-system", "only the selected provider is applied")
	require.Equal(t, "capstan/core-manager:v0.3.0", deployment(t, components.All[0]).Spec.Template.Spec.Containers[0].Image)
	require.Equal(t, "cluster-api CoreProvider v0.3.0", inventory(t)["capstan-system/cluster-api"], "a release tag is the recorded version")
}

// inventory reads clusterctl's inventory the way clusterctl finds it (entries labelled
// clusterctl.cluster.x-k8s.io/core=inventory in every namespace), keyed by namespace/name, each
// as "providerName type version"; it also checks the labels clusterctl gives every entry.
func inventory(t *testing.T) map[string]string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("clusterctl.cluster.x-k8s.io/v1alpha3")
	list.SetKind("ProviderList")
	require.NoError(t, env.Client.List(context.Background(), list, client.MatchingLabels{"clusterctl.cluster.x-k8s.io/core": "inventory"}))
	out := map[string]string{}
	for _, p := range list.Items {
		require.Equal(t, p.GetName(), p.GetLabels()["cluster.x-k8s.io/provider"], "inventory entry %s", p.GetName())
		require.Contains(t, p.GetLabels(), "clusterctl.cluster.x-k8s.io", "inventory entry %s", p.GetName())
		out[p.GetNamespace()+"/"+p.GetName()] = fmt.Sprintf("%s %s %s", p.Object["providerName"], p.Object["type"], p.Object["version"])
	}
	return out
}

// managerOf returns the field manager that applied o.
func managerOf(o *unstructured.Unstructured) string {
	for _, mf := range o.GetManagedFields() {
		if mf.Operation == metav1.ManagedFieldsOperationApply {
			return mf.Manager
		}
	}
	return ""
}

func TestInit_WaitPrintsEachChangeAndReturnsOnceTheManagerIsAvailable(t *testing.T) {
	kc := kubeconfigFile(t)
	core := components.All[0]
	r := run(t, "init", "--kubeconfig", kc, "--providers", "core", "--image-tag", "wait1")
	require.Equal(t, 0, r.code, r.stderr)

	w := ctltest.Start(t, cmd.Execute, "init", "--kubeconfig", kc, "--providers", "core", "--image-tag", "wait1",
		"--wait", "--timeout", "60s", "--poll-interval", "50ms")
	w.WaitOutput(t, "Waiting up to 1m0s for the managers to be available")
	ctltest.SetDeploymentAvailable(t, env, deployment(t, core), false)
	w.WaitOutput(t, "Deployment capstan-system/cluster-api-controller-manager: 1/1 updated, 0/1 available (Available False: MinimumReplicasUnavailable)\n")
	ctltest.SetDeploymentAvailable(t, env, deployment(t, core), true)
	require.Equal(t, 0, w.Wait(t, 30*time.Second), w.Stderr.String())
	stdout := w.Stdout.String()
	require.Contains(t, stdout, "Deployment capstan-system/cluster-api-controller-manager: 1/1 updated, 1/1 available: available\n")
	require.True(t, strings.HasSuffix(stdout, "Managers available\n"), stdout)
}

func TestInit_WaitTimeoutShowsConditionsAndPodWaitingReasonsAndSaysMakeImages(t *testing.T) {
	ctx := context.Background()
	kc := kubeconfigFile(t)
	docker := components.All[2]
	r := run(t, "init", "--kubeconfig", kc, "--providers", "docker")
	require.Equal(t, 0, r.code, r.stderr)
	d := deployment(t, docker)
	ctltest.SetDeploymentAvailable(t, env, d, false)
	image := d.Spec.Template.Spec.Containers[0].Image
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: "infrastructure-docker-controller-manager-x1",
			Labels: d.Spec.Template.Labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: image}}},
	}
	require.NoError(t, env.Client.Create(ctx, pod))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, pod) })
	envtest.UpdateStatus(t, env.Client, pod, func() {
		pod.Status.Phase = corev1.PodPending
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "manager", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull",
				Message: fmt.Sprintf("Container image %q is not present with pull policy of Never", image)}}}}
	})

	start := time.Now()
	r = run(t, "init", "--kubeconfig", kc, "--providers", "docker", "--wait", "--timeout", "2s", "--poll-interval", "100ms")
	require.Equal(t, 1, r.code, r.stdout)
	require.Less(t, time.Since(start), 20*time.Second)
	t.Logf("init --wait on timeout:\n%s", r.stderr)
	for _, want := range []string{
		"the managers are not available: timed out after 2s:",
		"Deployment capstan-docker-system/infrastructure-docker-controller-manager: 1/1 updated, 0/1 available",
		"condition Available=False MinimumReplicasUnavailable: Deployment does not have minimum availability.",
		"pod infrastructure-docker-controller-manager-x1: Pending",
		"container manager waiting: ErrImageNeverPull: Container image \"capstan/infrastructure-docker-manager:dev\" is not present",
		"next: the node has no image capstan/infrastructure-docker-manager:dev: build it with 'make images'",
	} {
		require.Contains(t, r.stderr, want)
	}
}

func TestInit_FlagErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--providers", "core,aws"}, `--providers: unknown provider "aws": choose from core,kubeadm,docker`},
		{[]string{"--image-tag", "a/b"}, `--image-tag: invalid image tag "a/b"`},
		{[]string{"--dev", "--image-tag", "v1"}, "--image-tag chooses the Deployments' images, and --dev runs local binaries"},
		{[]string{"--bin-dir", "x"}, "--bin-dir is for --dev: add --dev"},
		{[]string{"--state-dir", "x", "--manager-args", "core=--v=2"}, "--state-dir and --manager-args are for --dev: add --dev"},
		{[]string{"--dev", "--host-network"}, "--host-network is for the managers' pods, and --dev runs local processes"},
		{[]string{"--dev", "--token-ttl", "1m"}, "--token-ttl must be at least 10m"},
		{[]string{"--dev", "--manager-args", "core"}, `--manager-args "core": want PROVIDER=FLAGS`},
		{[]string{"--dev", "--manager-args", "aws=--v=1"}, `--manager-args "aws=--v=1": unknown provider "aws"`},
		{[]string{"--dev", "--providers", "core", "--manager-args", "kubeadm=--v=1"}, "--manager-args names provider kubeadm, which --providers does not select"},
		{[]string{"--wait", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"--dev", "--bin-dir", "/nonexistent/bin"}, "manager binaries not found: /nonexistent/bin/core, " +
			"/nonexistent/bin/bootstrap-kubeadm, /nonexistent/bin/infrastructure-docker: build them with 'make managers'"},
		{nil, "pass --kubeconfig or set KUBECONFIG"},
		{[]string{"extra"}, "capstanctl init takes no arguments"},
	} {
		r := run(t, append([]string{"init"}, tc.args...)...)
		require.Equal(t, 1, r.code, "%v: %s", tc.args, r.stdout)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
		require.NotContains(t, r.stdout, "created", "%v: nothing is applied", tc.args)
	}
}

// buildManagers builds the three manager binaries into a temporary bin directory.
func buildManagers(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, len(components.All))
	for i, p := range components.All {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := envtest.StaticBuild(filepath.Join(dir, p.Module), "capstan.dev/"+p.Module).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("go build capstan.dev/%s: %w: %s", p.Module, err, out)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	return dir
}

func leaseHolder(ctx context.Context, p components.Provider) (string, error) {
	l := &coordinationv1.Lease{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: p.LeaseName}, l); err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

// stopByPID sends SIGTERM to the PID in file and waits until the process is gone.
func stopByPID(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	if err := syscall.Kill(pid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	envtest.WaitFor(t, 45*time.Second, fmt.Sprintf("pid %d from %s to exit", pid, file), func() (bool, error) {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH), nil
	})
}

func TestInitDev_RunsTheManagerBinariesAsTheirServiceAccountsAndTheyTakeTheirLeases(t *testing.T) {
	ctx := context.Background()
	bin := buildManagers(t)
	state := filepath.Join(t.TempDir(), "dev")
	logs := filepath.Join(t.TempDir(), "logs")
	t.Cleanup(func() {
		for _, p := range components.All {
			stopByPID(t, filepath.Join(state, p.Module+".pid"))
		}
		if t.Failed() {
			for _, p := range components.All {
				log, _ := os.ReadFile(filepath.Join(logs, p.Module+".log"))
				t.Logf("%s log:\n%s", p.Module, log)
			}
		}
	})
	kc := kubeconfigFile(t)
	args := []string{"init", "--kubeconfig", kc, "--dev", "--bin-dir", bin, "--state-dir", state, "--log-dir", logs,
		"--manager-args", "kubeadm=--bootstrap-token-ttl=20m", "--timeout", "2m"}

	r := run(t, args...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "ClusterRoleBinding bootstrap-kubeadm-manager-rolebinding")
	require.NotContains(t, r.stdout, "Deployment ", "--dev applies no Deployment")
	pids := map[string]string{}
	for _, p := range components.All {
		require.Contains(t, r.stdout, p.Module+": started "+filepath.Join(bin, p.Module))
		require.Contains(t, r.stdout, p.Module+": ready (pid ")
		pid, err := os.ReadFile(filepath.Join(state, p.Module+".pid"))
		require.NoError(t, err)
		pids[p.Module] = string(pid)
		// Holding the Lease needs the provider's own leader-election Role: the manager runs
		// on the installed RBAC, not on the admin credentials init was given.
		envtest.WaitFor(t, 60*time.Second, p.Module+" to hold Lease "+p.Namespace+"/"+p.LeaseName, func() (bool, error) {
			h, err := leaseHolder(ctx, p)
			return h != "", err
		})

		own := filepath.Join(state, p.Module+".kubeconfig")
		st, err := os.Stat(own)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the manager's kubeconfig holds a credential")
		sa, err := p.ServiceAccount()
		require.NoError(t, err)
		require.Equal(t, "system:serviceaccount:"+p.Namespace+":"+sa, whoAmI(t, own))
		log, err := os.ReadFile(filepath.Join(logs, p.Module+".log"))
		require.NoError(t, err)
		require.Contains(t, string(log), "--kubeconfig="+own)
	}
	log, err := os.ReadFile(filepath.Join(logs, "bootstrap-kubeadm.log"))
	require.NoError(t, err)
	require.Contains(t, string(log), "--bootstrap-token-ttl=20m", "--manager-args reach their manager")
	require.NoFileExists(t, filepath.Join(state, "kubeconfig"), "no file with the caller's own credentials")

	r = run(t, args...)
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "new token", "a token valid for more than half its lifetime is kept")
	for _, p := range components.All {
		require.Contains(t, r.stdout, p.Module+": already running (pid "+strings.TrimSpace(pids[p.Module]))
		pid, err := os.ReadFile(filepath.Join(state, p.Module+".pid"))
		require.NoError(t, err)
		require.Equal(t, pids[p.Module], string(pid), "a second run keeps the running manager")
	}

	r = run(t, "init", "--dev", "--stop", "--state-dir", state)
	require.Equal(t, 0, r.code, r.stderr)
	for _, p := range components.All {
		require.Contains(t, r.stdout, p.Module+": stopped (pid "+strings.TrimSpace(pids[p.Module])+")")
		require.NoFileExists(t, filepath.Join(state, p.Module+".pid"))
		h, err := leaseHolder(ctx, p)
		require.NoError(t, err)
		require.Empty(t, h, "%s released its Lease on SIGTERM", p.Module)
	}
}

// whoAmI asks the API server who the kubeconfig at path authenticates as.
func whoAmI(t *testing.T, path string) string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err)
	return review.Status.UserInfo.Username
}

// A kubeconfig is reissued when its token has less than half its lifetime left, belongs to
// another ServiceAccount, or points at another server; otherwise it is kept byte for byte.
func TestDevCredentials_ReissuedOnlyWhenTheTokenWouldNotDo(t *testing.T) {
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "devcreds-"}}
	require.NoError(t, env.Client.Create(ctx, ns))
	for _, name := range []string{"one", "two"} {
		require.NoError(t, env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: name}}))
	}
	one := devcreds.ServiceAccount{Namespace: ns.Name, Name: "one"}
	path := filepath.Join(t.TempDir(), "one.kubeconfig")
	issuer := &devcreds.Issuer{Clientset: cs, Base: env.KubeConfig, TTL: time.Hour}

	wrote, err := issuer.Ensure(ctx, one, path)
	require.NoError(t, err)
	require.True(t, wrote)
	require.Equal(t, one.Username(), whoAmI(t, path))
	first, err := os.ReadFile(path)
	require.NoError(t, err)

	wrote, err = issuer.Ensure(ctx, one, path)
	require.NoError(t, err)
	require.False(t, wrote, "a fresh token is kept")
	same, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, first, same)

	later := &devcreds.Issuer{Clientset: cs, Base: env.KubeConfig, TTL: time.Hour, Now: func() time.Time { return time.Now().Add(31 * time.Minute) }}
	wrote, err = later.Ensure(ctx, one, path)
	require.NoError(t, err)
	require.True(t, wrote, "a token with less than half its lifetime left is reissued")

	two := devcreds.ServiceAccount{Namespace: ns.Name, Name: "two"}
	wrote, err = issuer.Ensure(ctx, two, path)
	require.NoError(t, err)
	require.True(t, wrote, "another ServiceAccount's token is replaced")
	require.Equal(t, two.Username(), whoAmI(t, path))

	_, err = issuer.Ensure(ctx, devcreds.ServiceAccount{Namespace: ns.Name, Name: "missing"}, filepath.Join(t.TempDir(), "x"))
	require.ErrorContains(t, err, "requesting a token of ServiceAccount "+ns.Name+"/missing for its manager")
}
