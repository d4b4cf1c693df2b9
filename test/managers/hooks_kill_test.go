package managers

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/test/framework"
)

// TestCoreManager_KilledWhileARuntimeHookHoldsConverges kills the core manager (SIGKILL) while
// the test Runtime Extension holds a topology Cluster's creation (BeforeClusterCreate) and, later,
// its deletion (BeforeClusterDelete). The restarted manager asks the hook again (its own metrics
// count the call) and keeps holding: no InfraCluster or ControlPlane is created, then none is
// deleted, on any watch event; once released, exactly one of each is created, and the deletion
// completes.
func TestCoreManager_KilledWhileARuntimeHookHoldsConverges(t *testing.T) {
	ctx := t.Context()
	ns, ext, start := coreWithExtension(t, "kill-hooks")
	mp, _ := start()

	require.NoError(t, ext.Set(ctx, "BeforeClusterCreate", `{"retryAfterSeconds":2,"message":"held by the test"}`))
	created := watchKinds(t, ns, crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK)
	c := createTopologyCluster(t, ns, false)
	waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterCreatingReason, "BeforeClusterCreate: held by the test")
	mp.kill(t)
	mp, diag := start()
	waitHookCalled(t, diag, "BeforeClusterCreate")
	waitTopologyHeld(t, c, clusterv1.ClusterTopologyReconciledClusterCreatingReason, "BeforeClusterCreate: held by the test")
	require.Empty(t, created.Drain(func(watch.Event, *unstructured.Unstructured) bool { return true }),
		"nothing of the topology is created while BeforeClusterCreate holds, across the kill")
	require.NoError(t, ext.Set(ctx, "BeforeClusterCreate", `{}`))
	envtest.WaitFor(t, time.Minute, "the Cluster pointed at its InfraCluster and ControlPlane", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)
		return err == nil && c.Spec.InfrastructureRef.IsDefined() && c.Spec.ControlPlaneRef.IsDefined(), err
	})
	for _, gvk := range []schema.GroupVersionKind{crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns)))
		require.Len(t, list.Items, 1, "exactly one %s: no duplicate from the restart", gvk.Kind)
	}
	killDuringDeleteHold(t, ext, c, ns, mp, start)
}

// killDuringDeleteHold holds c's deletion with BeforeClusterDelete, kills the core manager mp,
// starts another and checks nothing is deleted until the hook lets go.
func killDuringDeleteHold(t *testing.T, ext *framework.Extension, c *clusterv1.Cluster, ns string, mp *managerProcess, start func() (*managerProcess, string)) {
	ctx := t.Context()
	require.NoError(t, ext.Set(ctx, "BeforeClusterDelete", `{"retryAfterSeconds":2,"message":"held by the test"}`))
	deleted := watchKinds(t, ns, crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK)
	require.NoError(t, env.Client.Delete(ctx, c))
	waitTopologyHeld(t, c, "Deleting", "BeforeClusterDelete: held by the test")
	mp.kill(t)
	_, diag := start()
	waitHookCalled(t, diag, "BeforeClusterDelete")
	require.Empty(t, deleted.Drain(func(ev watch.Event, u *unstructured.Unstructured) bool {
		return ev.Type == watch.Deleted || u.GetDeletionTimestamp() != nil
	}), "nothing of the Cluster is deleted while BeforeClusterDelete holds, across the kill")
	require.NoError(t, ext.Set(ctx, "BeforeClusterDelete", `{}`))
	envtest.WaitFor(t, time.Minute, "the Cluster to be gone", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), &clusterv1.Cluster{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

// createTopologyCluster creates a ClusterClass of the generic test kinds and a Cluster of it with
// one control plane replica and, with workers, a MachineDeployment md-0 of no replicas (its
// version moves without Machines to roll).
func createTopologyCluster(t *testing.T, ns string, workers bool) *clusterv1.Cluster {
	ctx := t.Context()
	ref := func(gvk schema.GroupVersionKind, name string) clusterv1.ClusterClassTemplateReference {
		u := crds.New(gvk, ns, name)
		require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{"spec": map[string]any{}}, "spec", "template"))
		require.NoError(t, env.Client.Create(ctx, u))
		return clusterv1.ClusterClassTemplateReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: name}
	}
	cc := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kill"}, Spec: clusterv1.ClusterClassSpec{
		Infrastructure: clusterv1.InfrastructureClass{TemplateRef: ref(crds.GenericInfrastructureClusterTemplateGVK, "cluster")},
		ControlPlane: clusterv1.ControlPlaneClass{TemplateRef: ref(crds.GenericControlPlaneTemplateGVK, "cp"),
			MachineInfrastructure: clusterv1.ControlPlaneClassMachineInfrastructureTemplate{
				TemplateRef: ref(crds.GenericInfrastructureMachineTemplateGVK, "cp-machines")}},
	}}
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1"}, Spec: clusterv1.ClusterSpec{
		Topology: clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: "kill"}, Version: "v1.37.2",
			ControlPlane: clusterv1.ControlPlaneTopology{Replicas: ptr.To[int32](1)}}}}
	if workers {
		cc.Spec.Workers.MachineDeployments = []clusterv1.MachineDeploymentClass{{Class: "worker",
			Bootstrap:      clusterv1.WorkerClassBootstrapTemplate{TemplateRef: ref(crds.GenericBootstrapConfigTemplateGVK, "worker-bootstrap")},
			Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: ref(crds.GenericInfrastructureMachineTemplateGVK, "worker-machines")}}}
		c.Spec.Topology.Workers.MachineDeployments = []clusterv1.MachineDeploymentTopology{{Class: "worker", Name: "md-0", Replicas: ptr.To[int32](0)}}
	}
	require.NoError(t, env.Client.Create(ctx, cc))
	require.NoError(t, env.Client.Create(ctx, c))
	return c
}

// waitTopologyHeld waits for c's TopologyReconciled to be False with reason, its message saying want.
func waitTopologyHeld(t *testing.T, c *clusterv1.Cluster, reason, want string) {
	t.Helper()
	envtest.WaitFor(t, time.Minute, "TopologyReconciled "+reason+": "+want, func() (bool, error) {
		cur := &clusterv1.Cluster{}
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(c), cur); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(cur.Status.Conditions, clusterv1.ClusterTopologyReconciledCondition)
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == reason && strings.Contains(cond.Message, want), nil
	})
}

// waitHookCalled waits until the manager whose diagnostics endpoint is diag has called hook
// (upstream's capi_runtime_sdk_requests_total): it reconciled the held Cluster after its start.
func waitHookCalled(t *testing.T, diag, hook string) {
	t.Helper()
	envtest.WaitFor(t, time.Minute, "the restarted manager to call "+hook, func() (bool, error) {
		resp, err := http.Get("http://" + diag + "/metrics")
		if err != nil {
			return false, nil // not listening yet
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "capi_runtime_sdk_requests_total{") && strings.Contains(line, `hook="`+hook+`"`) {
				v, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
				if err == nil && v > 0 {
					return true, nil
				}
			}
		}
		return false, sc.Err()
	})
}

// waitDiscovered waits for the core to have discovered the ExtensionConfig name.
func waitDiscovered(t *testing.T, name string) {
	t.Helper()
	envtest.WaitFor(t, time.Minute, "ExtensionConfig "+name+" Discovered", func() (bool, error) {
		ext := &runtimev1.ExtensionConfig{}
		if err := env.Client.Get(t.Context(), client.ObjectKey{Name: name}, ext); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == ext.Generation, nil
	})
}

// coreWithExtension builds the core manager and runs the test extension for a new namespace
// (prefix); start starts a core manager (again after a kill) with its own diagnostics address,
// and the first start waits until it has discovered the extension.
func coreWithExtension(t *testing.T, prefix string) (ns string, ext *framework.Extension, start func() (*managerProcess, string)) {
	t.Helper()
	p := providers[0]
	ensureNamespace(t, p.namespace)
	bin := buildManager(t, p)
	kubeconfig := kubeconfigFile(t)
	ns = env.CreateNamespace(t, prefix)
	ext = runExtension(t, kubeconfig, ns)
	started := false
	start = func() (*managerProcess, string) {
		diag := envtest.FreeLoopbackAddr(t)
		mp := startManager(t, bin, kubeconfig, "--leader-elect=false", "--diagnostics-address="+diag, "--insecure-diagnostics")
		if !started {
			waitDiscovered(t, ext.Name)
			started = true
		}
		return mp, diag
	}
	return ns, ext, start
}

// runExtension builds and runs the test extension behind an ExtensionConfig that selects only ns.
func runExtension(t *testing.T, kubeconfig, ns string) *framework.Extension {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "extension")
	out, err := envtest.StaticBuild(bin, "capstan.dev/test/extension").CombinedOutput()
	require.NoError(t, err, "building the test extension: %s", out)
	var log bytes.Buffer // read only after Stop, which waits for the process
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ext, err := framework.StartExtension(ctx, env.Client, bin, envtest.FreeLoopbackAddr(t), kubeconfig, ns, &log)
	require.NoError(t, err)
	t.Cleanup(func() {
		ext.Stop()
		if t.Failed() {
			t.Logf("test extension output:\n%s", log.String())
		}
	})
	return ext
}

// watchKinds watches the kinds in ns until the test ends.
func watchKinds(t *testing.T, ns string, gvks ...schema.GroupVersionKind) *framework.KindWatch {
	t.Helper()
	w, err := framework.WatchKinds(t.Context(), env.Client, ns, gvks...)
	require.NoError(t, err)
	t.Cleanup(w.Stop)
	return w
}

// kill ends the manager with SIGKILL, as a node failure or an OOM kill would: no deferred
// patch, no lease release.
func (mp *managerProcess) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, mp.cmd.Process.Kill())
	select {
	case <-mp.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("manager did not exit within 30s of SIGKILL")
	}
}
