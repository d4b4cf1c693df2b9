/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package topology

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
	"capstan.dev/core/internal/runtime/tracking"
)

// upgradeExtension serves every upgrade hook; each answers retryAfterSeconds as set for it (0 by
// default) with the message "waiting for <Hook>", and every request is recorded.
type upgradeExtension struct {
	srv   *httptest.Server
	mu    sync.Mutex
	retry map[string]int32
	calls []hookCall
}

// hookCall is one request the extension received.
type hookCall struct {
	hook string
	body map[string]any
}

func newUpgradeExtension(t *testing.T) *upgradeExtension {
	e := &upgradeExtension{retry: map[string]int32{}}
	byPath := map[string]string{}
	for _, h := range upgradeHookNames() {
		byPath[strings.ToLower(h)] = h
	}
	e.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hook, ok := byPath[path.Base(path.Dir(r.URL.Path))]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := map[string]any{}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		e.calls = append(e.calls, hookCall{hook, body})
		retry := e.retry[hook]
		e.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": hooksv1.APIVersion, "kind": hook + "Response",
			"status": "Success", "message": "waiting for " + hook, "retryAfterSeconds": retry})
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// set makes hook answer retryAfterSeconds retry from now on.
func (e *upgradeExtension) set(hook string, retry int32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.retry[hook] = retry
}

// called returns the requests hook received so far.
func (e *upgradeExtension) called(hook string) []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []map[string]any
	for _, c := range e.calls {
		if c.hook == hook {
			out = append(out, c.body)
		}
	}
	return out
}

// firstCalls lists the hooks in the order of their first call.
func (e *upgradeExtension) firstCalls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, c := range e.calls {
		if !contains(out, c.hook) {
			out = append(out, c.hook)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// register registers a handler per upgrade hook in rc, for the namespace ns only.
func (e *upgradeExtension) register(rc *runtimeclient.Client, ns string) {
	var handlers []runtimev1.ExtensionHandler
	for _, h := range upgradeHookNames() {
		handlers = append(handlers, runtimev1.ExtensionHandler{Name: strings.ToLower(h) + ".upgrade-ext",
			RequestHook:    runtimev1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: h},
			TimeoutSeconds: ptr.To[int32](10), FailurePolicy: runtimev1.FailurePolicyFail})
	}
	rc.Registry.Register(&runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "upgrade-ext"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{URL: e.srv.URL,
				CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.srv.Certificate().Raw})},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: handlers},
	})
}

// observeControlPlaneVersion fails the test if the ControlPlane of ns ever runs another
// spec.version than v1.37.2 before released reports true: checked on every event of it.
func observeControlPlaneVersion(t *testing.T, ns string, released *atomic.Bool) func() {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(crds.GenericControlPlaneGVK.GroupVersion().WithKind(crds.GenericControlPlaneGVK.Kind + "List"))
	return env.Observe(t, list, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			v, _, _ := unstructured.NestedString(o.(*unstructured.Unstructured).Object, "spec", "version")
			if v != "v1.37.2" && !released.Load() {
				return fmt.Errorf("ControlPlane %s got %s while a hook held the upgrade", o.GetName(), v)
			}
		}
		return nil
	})
}

// waitHookBlocks waits until TopologyReconciled says the hook holds the upgrade (ClusterUpgrading).
func waitHookBlocks(t *testing.T, c *clusterv1.Cluster, hook string) *clusterv1.Cluster {
	t.Helper()
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Following hooks are blocking upgrade: "+hook+": waiting for "+hook)
	require.Equal(t, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, conditionReason(got))
	return got
}

// TestTopology_UpgradeHooksHoldEachStepUntilTheyLetGo walks a real upgrade through its hooks:
// BeforeClusterUpgrade holds the control plane at its version (observed on every ControlPlane
// event) and is told the plan; once it lets go the control plane moves and the hooks owed later
// are marked pending; AfterControlPlaneUpgrade, then BeforeWorkersUpgrade hold the
// MachineDeployments at the old version while the control plane runs the new one (observed on
// every MachineDeployment event); AfterWorkersUpgrade and then AfterClusterUpgrade are asked once
// the workers are done, and the pending-hooks annotation is gone at the end.
func TestTopology_UpgradeHooksHoldEachStepUntilTheyLetGo(t *testing.T) {
	ext := newUpgradeExtension(t)
	rc := runtimeclient.New(registry.New(), env.Client)
	startControllerWith(t, nil, nil, rc)
	ns, c, got := stableCluster(t)
	ext.register(rc, ns)
	cpName := got.Spec.ControlPlaneRef.Name
	for _, h := range upgradeHookNames() {
		ext.set(h, 1)
	}
	var cpReleased, workersReleased atomic.Bool
	stopCP := observeControlPlaneVersion(t, ns, &cpReleased)
	defer stopCP()
	stopMDs := env.Observe(t, &clusterv1.MachineDeploymentList{}, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			if v := o.(*clusterv1.MachineDeployment).Spec.Template.Spec.Version; v != "v1.37.2" && !workersReleased.Load() {
				return fmt.Errorf("MachineDeployment %s got %s while a hook held the workers", o.GetName(), v)
			}
		}
		return nil
	})
	defer stopMDs()

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.38.0" })
	got = waitHookBlocks(t, c, hooksv1.BeforeClusterUpgrade)
	env.WaitForEvents(t, timeout, got, ReasonHookBlocking, 1)
	req := ext.called(hooksv1.BeforeClusterUpgrade)[0]
	require.Equal(t, "v1.37.2", req["fromKubernetesVersion"])
	require.Equal(t, "v1.38.0", req["toKubernetesVersion"])
	require.Equal(t, []any{map[string]any{"version": "v1.38.0"}}, req["controlPlaneUpgrades"])
	require.Equal(t, []any{map[string]any{"version": "v1.38.0"}}, req["workersUpgrades"])
	require.Empty(t, tracking.Pending(got), "nothing is owed before the upgrade starts")

	// BeforeClusterUpgrade lets go; BeforeControlPlaneUpgrade still holds.
	ext.set(hooksv1.BeforeClusterUpgrade, 0)
	got = waitHookBlocks(t, c, hooksv1.BeforeControlPlaneUpgrade)
	require.Equal(t, []string{hooksv1.AfterClusterUpgrade}, tracking.Pending(got))

	cpReleased.Store(true)
	ext.set(hooksv1.BeforeControlPlaneUpgrade, 0)
	envtest.WaitFor(t, timeout, "the ControlPlane at v1.38.0", func() (bool, error) {
		return nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpName), "spec", "version") == "v1.38.0", nil
	})
	got, err := getCluster(c)
	require.NoError(t, err)
	require.Equal(t, []string{hooksv1.AfterClusterUpgrade, hooksv1.AfterControlPlaneUpgrade, hooksv1.AfterWorkersUpgrade,
		hooksv1.BeforeWorkersUpgrade}, tracking.Pending(got), "marked before the new version was applied")

	// The control plane is upgraded: AfterControlPlaneUpgrade, then BeforeWorkersUpgrade hold the workers.
	setControlPlaneStatus(t, ns, cpName, "v1.38.0", 3, 3)
	got = waitHookBlocks(t, c, hooksv1.AfterControlPlaneUpgrade)
	require.Contains(t, conditionMessage(got), "MachineDeployment md-0 upgrade to v1.38.0 deferred: held by the AfterControlPlaneUpgrade hook")
	require.Equal(t, "v1.38.0", ext.called(hooksv1.AfterControlPlaneUpgrade)[0]["kubernetesVersion"])
	ext.set(hooksv1.AfterControlPlaneUpgrade, 0)
	got = waitHookBlocks(t, c, hooksv1.BeforeWorkersUpgrade)
	require.Equal(t, map[string]string{"md-0": "v1.37.2", "md-1": "v1.37.2"}, versionsOf(t, got))
	require.Equal(t, []string{hooksv1.AfterClusterUpgrade, hooksv1.AfterWorkersUpgrade, hooksv1.BeforeWorkersUpgrade}, tracking.Pending(got))

	// The workers go; once they run v1.38.0, AfterWorkersUpgrade and then AfterClusterUpgrade are asked.
	workersReleased.Store(true)
	ext.set(hooksv1.BeforeWorkersUpgrade, 0)
	got = waitHookBlocks(t, c, hooksv1.AfterWorkersUpgrade)
	require.Equal(t, map[string]string{"md-0": "v1.38.0", "md-1": "v1.38.0"}, versionsOf(t, got))
	require.Empty(t, ext.called(hooksv1.AfterClusterUpgrade), "asked only once AfterWorkersUpgrade let go")
	ext.set(hooksv1.AfterWorkersUpgrade, 0)
	got = waitHookBlocks(t, c, hooksv1.AfterClusterUpgrade)
	require.Equal(t, "v1.38.0", ext.called(hooksv1.AfterClusterUpgrade)[0]["kubernetesVersion"])
	require.Equal(t, []string{hooksv1.AfterClusterUpgrade}, tracking.Pending(got))
	ext.set(hooksv1.AfterClusterUpgrade, 0)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Empty(t, tracking.Pending(got))
	require.NotContains(t, got.Annotations, runtimev1.PendingHooksAnnotation)
	require.Equal(t, upgradeHookNames(), ext.firstCalls())
}

// TestTopology_ABeforeUpgradeAnnotationHoldsTheUpgrade: a before-upgrade.hook.cluster.cluster.x-k8s.io
// annotation holds the upgrade as a blocking BeforeClusterUpgrade would, with no extension at all;
// removing it lets the control plane go, and with no extension nothing is marked pending.
func TestTopology_ABeforeUpgradeAnnotationHoldsTheUpgrade(t *testing.T) {
	startControllerWith(t, nil, nil, runtimeclient.New(registry.New(), env.Client))
	ns, c, got := stableCluster(t)
	var released atomic.Bool
	stop := observeControlPlaneVersion(t, ns, &released)
	defer stop()
	key := clusterv1.BeforeClusterUpgradeHookAnnotationPrefix + "/my-tool"
	envtest.Update(t, env.Client, got, func() {
		got.Annotations = map[string]string{key: ""}
		got.Spec.Topology.Version = "v1.38.0"
	})
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Following hooks are blocking upgrade: BeforeClusterUpgrade: annotation "+key+" is set")
	require.Equal(t, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, conditionReason(got))

	released.Store(true)
	envtest.Update(t, env.Client, got, func() { delete(got.Annotations, key) })
	envtest.WaitFor(t, timeout, "the ControlPlane at v1.38.0", func() (bool, error) {
		return nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name), "spec", "version") == "v1.38.0", nil
	})
	// No extension serves an upgrade hook: nothing is owed, so nothing is written for it.
	got, err := getCluster(c)
	require.NoError(t, err)
	require.NotContains(t, got.Annotations, runtimev1.PendingHooksAnnotation)
}

// TestTopology_APendingAfterClusterUpgradeIsCalledAfterARestart: the pending-hooks annotation is
// the only record of what is owed, so a Cluster that carries it when the controller starts (as
// after a kill -9) gets AfterClusterUpgrade called once it is stable, and the mark cleared; while
// it is pending, a change of spec.topology.version is refused at admission.
func TestTopology_APendingAfterClusterUpgradeIsCalledAfterARestart(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-hook")
	quickStart(t, ns)
	c := topologyCluster(ns)
	c.Annotations = map[string]string{runtimev1.PendingHooksAnnotation: hooksv1.AfterClusterUpgrade}
	require.NoError(t, env.Client.Create(t.Context(), c))
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(env.Client.Delete(context.Background(), c))) })

	err := env.Client.Patch(t.Context(), c, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"topology":{"version":"v1.38.0"}}}`)))
	require.ErrorContains(t, err, "spec.topology.version: Forbidden: cannot change from v1.37.2 to v1.38.0 while the AfterClusterUpgrade hook of the previous upgrade is still pending")

	ext := newUpgradeExtension(t)
	ext.set(hooksv1.AfterClusterUpgrade, 1)
	rc := runtimeclient.New(registry.New(), env.Client)
	ext.register(rc, ns)
	startControllerWith(t, nil, nil, rc)
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Empty(t, ext.called(hooksv1.AfterClusterUpgrade), "not asked while the control plane is provisioning")
	require.Equal(t, []string{hooksv1.AfterClusterUpgrade}, tracking.Pending(got))
	setControlPlaneStatus(t, ns, got.Spec.ControlPlaneRef.Name, "v1.37.2", 3, 3)
	waitHookBlocks(t, c, hooksv1.AfterClusterUpgrade)
	ext.set(hooksv1.AfterClusterUpgrade, 0)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Empty(t, tracking.Pending(got))
	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.38.0" })
}

// TestTopology_AnUnreachableUpgradeHookFailsTheReconcileAndHoldsTheUpgrade: a BeforeClusterUpgrade
// handler that cannot be called (failurePolicy Fail) fails the reconcile, naming the extension and
// the hook, and the control plane stays at its version (observed on every event of it).
func TestTopology_AnUnreachableUpgradeHookFailsTheReconcileAndHoldsTheUpgrade(t *testing.T) {
	ext := newUpgradeExtension(t)
	rc := runtimeclient.New(registry.New(), env.Client)
	startControllerWith(t, nil, nil, rc)
	ns, c, got := stableCluster(t)
	ext.register(rc, ns)
	ext.srv.Close()
	var never atomic.Bool
	stop := observeControlPlaneVersion(t, ns, &never)
	defer stop()
	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.38.0" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"calling BeforeClusterUpgrade handler beforeclusterupgrade.upgrade-ext of extension upgrade-ext: Unreachable")
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditionReason(got))
	require.Empty(t, tracking.Pending(got), "nothing is owed: the upgrade has not started")
}

// TestTopology_AChainedUpgradeAsksBeforeClusterUpgradeOnceAndEachStepsHooks: through the class's
// kubernetesVersions, v1.37.2 to v1.39.1 runs two control plane steps. BeforeClusterUpgrade is
// asked only at the start (from v1.37.2, told both steps), the per-step hooks once per step with
// that step's version, and AfterClusterUpgrade at the end with the target.
func TestTopology_AChainedUpgradeAsksBeforeClusterUpgradeOnceAndEachStepsHooks(t *testing.T) {
	ext := newUpgradeExtension(t)
	rc := runtimeclient.New(registry.New(), env.Client)
	startControllerWith(t, nil, nil, rc)
	ns, c, got := stableCluster(t)
	ext.register(rc, ns)
	cpName := got.Spec.ControlPlaneRef.Name
	cc := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "quick-start"}, cc))
	envtest.Update(t, env.Client, cc, func() { cc.Spec.KubernetesVersions = []string{"v1.37.2", "v1.38.3", "v1.39.1"} })
	markReconciled(t, cc)

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.39.1" })
	for _, step := range []string{"v1.38.3", "v1.39.1"} {
		envtest.WaitFor(t, timeout, "the ControlPlane at "+step, func() (bool, error) {
			return nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, cpName), "spec", "version") == step, nil
		})
		setControlPlaneStatus(t, ns, cpName, step, 3, 3)
	}
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Equal(t, map[string]string{"md-0": "v1.39.1", "md-1": "v1.39.1"}, versionsOf(t, got))
	envtest.WaitFor(t, timeout, "AfterClusterUpgrade asked and cleared", func() (bool, error) {
		got, err := getCluster(c)
		return err == nil && len(ext.called(hooksv1.AfterClusterUpgrade)) > 0 && len(tracking.Pending(got)) == 0, err
	})

	require.NotEmpty(t, ext.called(hooksv1.BeforeClusterUpgrade))
	for _, req := range ext.called(hooksv1.BeforeClusterUpgrade) {
		require.Equal(t, "v1.37.2", req["fromKubernetesVersion"], "asked at the start only")
		require.Equal(t, []any{map[string]any{"version": "v1.38.3"}, map[string]any{"version": "v1.39.1"}}, req["controlPlaneUpgrades"])
	}
	versions := func(hook, field string) []string {
		var out []string
		for _, req := range ext.called(hook) {
			if v, _ := req[field].(string); !contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, versions(hooksv1.BeforeControlPlaneUpgrade, "toKubernetesVersion"))
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, versions(hooksv1.AfterControlPlaneUpgrade, "kubernetesVersion"))
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, versions(hooksv1.BeforeWorkersUpgrade, "toKubernetesVersion"))
	require.Equal(t, []string{"v1.38.3", "v1.39.1"}, versions(hooksv1.AfterWorkersUpgrade, "kubernetesVersion"))
	require.Equal(t, []string{"v1.39.1"}, versions(hooksv1.AfterClusterUpgrade, "kubernetesVersion"))
}

// TestTopology_APendingHookWithoutAHandlerIsCleared: hooks marked pending that no extension
// serves are not called, just cleared once they would be.
func TestTopology_APendingHookWithoutAHandlerIsCleared(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-hook")
	quickStart(t, ns)
	c := topologyCluster(ns)
	c.Annotations = map[string]string{runtimev1.PendingHooksAnnotation: "AfterClusterUpgrade,AfterControlPlaneUpgrade,AfterWorkersUpgrade"}
	require.NoError(t, env.Client.Create(t.Context(), c))
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(env.Client.Delete(context.Background(), c))) })
	startControllerWith(t, nil, nil, runtimeclient.New(registry.New(), env.Client))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	setControlPlaneStatus(t, ns, got.Spec.ControlPlaneRef.Name, "v1.37.2", 3, 3)
	envtest.WaitFor(t, timeout, "the pending-hooks annotation gone", func() (bool, error) {
		got, err := getCluster(c)
		if err != nil {
			return false, err
		}
		if v, ok := got.Annotations[runtimev1.PendingHooksAnnotation]; ok {
			return false, fmt.Errorf("pending-hooks is %q", v)
		}
		return true, nil
	})
}
