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
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/controller/cluster"
	"capstan.dev/core/internal/controller/clusterresourcesetbinding"
	"capstan.dev/core/internal/coretest"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
	"capstan.dev/core/internal/runtime/tracking"
)

// lifecycleExtension serves AfterControlPlaneInitialized and BeforeClusterDelete: the latter
// answers retryAfterSeconds as set; both count their calls.
type lifecycleExtension struct {
	srv                           *httptest.Server
	deleteRetry                   atomic.Int32
	initializedCalls, deleteCalls atomic.Int32
}

func newLifecycleExtension(t *testing.T) *lifecycleExtension {
	e := &lifecycleExtension{}
	e.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := map[string]any{"apiVersion": hooksv1.APIVersion, "status": hooksv1.ResponseStatusSuccess}
		switch strings.Split(strings.TrimPrefix(r.URL.Path, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/"), "/")[0] {
		case "aftercontrolplaneinitialized":
			e.initializedCalls.Add(1)
		case "beforeclusterdelete":
			e.deleteCalls.Add(1)
			answer["message"], answer["retryAfterSeconds"] = "waiting for the backup", e.deleteRetry.Load()
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// registerFor registers a handler per hook in a new registry, for the namespace ns only.
func (e *lifecycleExtension) registerFor(ns string, hooks ...string) *runtimeclient.Client {
	rc := runtimeclient.New(registry.New(), env.Client)
	var handlers []runtimev1.ExtensionHandler
	for _, h := range hooks {
		handlers = append(handlers, runtimev1.ExtensionHandler{Name: strings.ToLower(h) + ".lifecycle-ext",
			RequestHook:    runtimev1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: h},
			TimeoutSeconds: ptr.To[int32](10), FailurePolicy: runtimev1.FailurePolicyFail})
	}
	rc.Registry.Register(&runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "lifecycle-ext"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{URL: e.srv.URL,
				CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.srv.Certificate().Raw})},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: handlers},
	})
	return rc
}

// startDeletion runs the Cluster and ClusterResourceSetBinding controllers for the Clusters and
// bindings labelled with filter only (other tests' Clusters are left alone).
func startDeletion(t *testing.T, filter string) {
	t.Helper()
	mgr := coretest.NewManager(t, env)
	opts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{SecretReader: mgr.GetAPIReader(), WatchFilterValue: filter, Controller: opts})
	require.NoError(t, err)
	require.NoError(t, (&cluster.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Health: cc,
		WatchFilterValue: filter}).SetupWithManager(t.Context(), mgr, opts))
	require.NoError(t, (&clusterresourcesetbinding.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(),
		WatchFilterValue: filter}).SetupWithManager(t.Context(), mgr, opts))
	coretest.StartManager(t, mgr)
}

// createdTopology creates the quick-start topology Cluster c1 in ns, labelled for filter, with a
// ClusterResourceSetBinding, and waits until its topology is reconciled.
func createdTopology(t *testing.T, ns, filter string) (*clusterv1.Cluster, *addonsv1.ClusterResourceSetBinding) {
	t.Helper()
	quickStart(t, ns)
	c := topologyCluster(ns)
	c.Labels = map[string]string{clusterv1.WatchLabel: filter}
	require.NoError(t, env.Client.Create(t.Context(), c))
	b := &addonsv1.ClusterResourceSetBinding{ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: ns, Labels: c.Labels},
		Spec: addonsv1.ClusterResourceSetBindingSpec{ClusterName: c.Name}}
	require.NoError(t, env.Client.Create(t.Context(), b))
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	envtest.WaitFor(t, timeout, "the Cluster controller's finalizer", func() (bool, error) {
		got, err := getCluster(c)
		return err == nil && slices.Contains(got.Finalizers, clusterv1.ClusterFinalizer), err
	})
	return c, b
}

// neverDeleted fails the test if an object of gvk in ns (there must be some) gets a
// deletionTimestamp or goes, on any event until stop is called.
func neverDeleted(t *testing.T, gvk schema.GroupVersionKind, ns string) (stop func()) {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(ns)))
	require.NotEmpty(t, list.Items, "no %s to observe", gvk.Kind)
	var names []string
	for _, o := range list.Items {
		names = append(names, o.GetName())
	}
	return env.Observe(t, list, ns, func(objs map[string]client.Object) error {
		for _, name := range names {
			o, ok := objs[name]
			switch {
			case !ok:
				return fmt.Errorf("%s %s was deleted", gvk.Kind, name)
			case !o.GetDeletionTimestamp().IsZero():
				return fmt.Errorf("%s %s is being deleted", gvk.Kind, name)
			}
		}
		return nil
	})
}

// TestTopology_BeforeClusterDeleteHoldsAllDeletionUntilTheHookAllows: while the extension's
// BeforeClusterDelete handler answers retryAfterSeconds > 0, no InfrastructureCluster,
// ControlPlane, MachineDeployment or ClusterResourceSetBinding of the deleted Cluster is deleted
// (checked on every watch event), TopologyReconciled and Deleting say why, and the hold is
// recorded once as an Event; once the handler allows, the Cluster is marked ok-to-delete and goes.
func TestTopology_BeforeClusterDeleteHoldsAllDeletionUntilTheHookAllows(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-delete-hook")
	ext := newLifecycleExtension(t)
	ext.deleteRetry.Store(1)
	calls := &envtest.CallCounter{Key: client.ObjectKey{Namespace: ns, Name: "c1"}, Type: &clusterv1.Cluster{}}
	startControllerWith(t, nil, calls, ext.registerFor(ns, hooksv1.BeforeClusterDelete))
	startDeletion(t, ns)
	c, b := createdTopology(t, ns, ns)
	require.Len(t, machineDeployments(t, c), 2)
	stops := []func(){neverDeleted(t, crds.GenericInfrastructureClusterGVK, ns), neverDeleted(t, crds.GenericControlPlaneGVK, ns),
		neverDeleted(t, clusterv1.GroupVersion.WithKind("MachineDeployment"), ns),
		neverDeleted(t, addonsv1.GroupVersion.WithKind("ClusterResourceSetBinding"), ns)}

	require.NoError(t, env.Client.Delete(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"Cluster is deleting. Following hooks are blocking delete: BeforeClusterDelete: waiting for the backup")
	require.Equal(t, clusterv1.ClusterTopologyReconciledDeletingReason, conditionReason(got))
	waitCondition(t, c, clusterv1.ClusterDeletingCondition, metav1.ConditionTrue, "Waiting for BeforeClusterDelete hook")
	blocked := env.WaitForEvents(t, timeout, got, ReasonHookBlocking, 1)
	require.Equal(t, "Cluster is deleting. Following hooks are blocking delete: BeforeClusterDelete: waiting for the backup", blocked[0].Note)
	// Asked again every second; still held after a few answers.
	envtest.WaitFor(t, timeout, "three BeforeClusterDelete calls", func() (bool, error) { return ext.deleteCalls.Load() >= 3, nil })
	got, err := getCluster(c)
	require.NoError(t, err)
	require.False(t, tracking.IsOkToDelete(got), "not ok-to-delete while the hook holds")
	_, writes := calls.Snapshot()
	require.Equal(t, 1, countPrefix(writes, "event "+ReasonHookBlocking+" "), "one Event per hold: %v", writes)
	for _, stop := range stops {
		stop()
	}

	ext.deleteRetry.Store(0)
	envtest.WaitFor(t, timeout, "the Cluster and its binding to be gone", func() (bool, error) {
		if _, err := getCluster(c); !apierrors.IsNotFound(err) {
			return false, client.IgnoreNotFound(err)
		}
		err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(b), &addonsv1.ClusterResourceSetBinding{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

// TestTopology_AnUnreachableBeforeClusterDeleteExtensionHoldsTheDeletionAndIsNamed: a handler
// that cannot be called (failurePolicy Fail) holds the deletion, TopologyReconciled names the
// extension, the hook and what failed; setting the ok-to-delete annotation by hand, as
// docs/troubleshooting.md tells, lets the deletion go on.
func TestTopology_AnUnreachableBeforeClusterDeleteExtensionHoldsTheDeletionAndIsNamed(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-delete-unreachable")
	ext := newLifecycleExtension(t)
	startControllerWith(t, nil, nil, ext.registerFor(ns, hooksv1.BeforeClusterDelete))
	startDeletion(t, ns)
	c, _ := createdTopology(t, ns, ns)
	ext.srv.Close()
	require.NoError(t, env.Client.Delete(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"calling BeforeClusterDelete handler beforeclusterdelete.lifecycle-ext of extension lifecycle-ext: Unreachable")
	require.Equal(t, clusterv1.ClusterTopologyReconciledFailedReason, conditionReason(got))
	require.Contains(t, conditions.Get(got, clusterv1.ClusterTopologyReconciledCondition).Message, "fix the Runtime Extension or its ExtensionConfig")
	got = waitCondition(t, c, clusterv1.ClusterDeletingCondition, metav1.ConditionTrue, "Waiting for BeforeClusterDelete hook")
	require.False(t, tracking.IsOkToDelete(got))
	require.NotNil(t, get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name), "the ControlPlane is kept")

	envtest.Update(t, env.Client, got, func() { metav1.SetMetaDataAnnotation(&got.ObjectMeta, runtimev1.OkToDeleteAnnotation, "") })
	envtest.WaitFor(t, timeout, "the Cluster to be gone", func() (bool, error) {
		_, err := getCluster(c)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

// TestTopology_DeletionGoesOnWhenNoBeforeClusterDeleteHandlerIsRegistered: without a handler the
// topology controller marks the deleting Cluster ok-to-delete at once and the Cluster
// controller takes it apart (a test finalizer keeps the Cluster to read its annotation).
func TestTopology_DeletionGoesOnWhenNoBeforeClusterDeleteHandlerIsRegistered(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-delete-nohook")
	startControllerWith(t, nil, nil, runtimeclient.New(registry.New(), env.Client))
	startDeletion(t, ns)
	c, _ := createdTopology(t, ns, ns)
	envtest.Update(t, env.Client, c, func() { c.Finalizers = append(c.Finalizers, "test.capstan.dev/hold") })
	require.NoError(t, env.Client.Delete(t.Context(), c))
	var got *clusterv1.Cluster
	envtest.WaitFor(t, timeout, "the Cluster controller to finish its part", func() (bool, error) {
		var err error
		got, err = getCluster(c)
		if err != nil {
			return false, err
		}
		cond := conditions.Get(got, clusterv1.ClusterDeletingCondition)
		return cond != nil && cond.Reason == clusterv1.ClusterDeletingDeletionCompletedReason, nil
	})
	require.True(t, tracking.IsOkToDelete(got))
	require.Nil(t, get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name), "the ControlPlane was deleted")
	envtest.Update(t, env.Client, got, func() { got.Finalizers = nil })
}

// TestTopology_AfterControlPlaneInitializedIsCalledOnceTheControlPlaneIsInitialized: the hook is
// marked pending when the topology is created, called once the Cluster's ControlPlaneInitialized
// turns True (set by the Cluster controller from the ControlPlane's status), and unmarked; later
// reconciles do not call it again. A pending mark found after a
// restart (here: put back by hand, as if the core died between the call and the unmarking) gets
// one more call, then none.
func TestTopology_AfterControlPlaneInitializedIsCalledOnceTheControlPlaneIsInitialized(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-initialized-hook")
	ext := newLifecycleExtension(t)
	calls := &envtest.CallCounter{Key: client.ObjectKey{Namespace: ns, Name: "c1"}, Type: &clusterv1.Cluster{}}
	startControllerWith(t, nil, calls, ext.registerFor(ns, hooksv1.AfterControlPlaneInitialized))
	startDeletion(t, ns)
	c, _ := createdTopology(t, ns, ns)
	got, err := getCluster(c)
	require.NoError(t, err)
	require.True(t, tracking.IsPending(got, hooksv1.AfterControlPlaneInitialized), "marked pending with the topology's creation")
	require.Zero(t, ext.initializedCalls.Load(), "not called before the control plane is initialized")

	// The control plane provider reports it initialized; the Cluster controller sets the
	// Cluster's ControlPlaneInitialized, a status change the topology controller is woken by.
	coretest.SetStatus(t, env, get(t, crds.GenericControlPlaneGVK, ns, got.Spec.ControlPlaneRef.Name),
		map[string]any{"initialization.controlPlaneInitialized": true})
	waitCondition(t, c, clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionTrue, "")
	waitNotPending(t, c)
	require.EqualValues(t, 1, ext.initializedCalls.Load())
	reconcileOnceMore(t, c, calls)
	require.EqualValues(t, 1, ext.initializedCalls.Load(), "called once")

	got, err = getCluster(c)
	require.NoError(t, err)
	envtest.Update(t, env.Client, got, func() {
		metav1.SetMetaDataAnnotation(&got.ObjectMeta, runtimev1.PendingHooksAnnotation, hooksv1.AfterControlPlaneInitialized)
	})
	waitNotPending(t, c)
	require.EqualValues(t, 2, ext.initializedCalls.Load(), "a pending mark found on restart is honoured")
	reconcileOnceMore(t, c, calls)
	require.EqualValues(t, 2, ext.initializedCalls.Load())
}

func waitNotPending(t *testing.T, c *clusterv1.Cluster) {
	t.Helper()
	envtest.WaitFor(t, timeout, "AfterControlPlaneInitialized to be unmarked", func() (bool, error) {
		got, err := getCluster(c)
		return err == nil && !tracking.IsPending(got, hooksv1.AfterControlPlaneInitialized), err
	})
}

// reconcileOnceMore makes the controller reconcile c again, to the end: it pokes an annotation
// twice and waits for a read of the Cluster after each; reconciles of one Cluster never overlap,
// so the second read means the first poke's reconcile is over.
func reconcileOnceMore(t *testing.T, c *clusterv1.Cluster, calls *envtest.CallCounter) {
	t.Helper()
	for i := range 2 {
		got, err := getCluster(c)
		require.NoError(t, err)
		gets, _ := calls.Snapshot()
		envtest.Update(t, env.Client, got, func() { metav1.SetMetaDataAnnotation(&got.ObjectMeta, "test.capstan.dev/poke", fmt.Sprint(i)) })
		envtest.WaitFor(t, timeout, "another reconcile", func() (bool, error) {
			now, _ := calls.Snapshot()
			return now > gets, nil
		})
	}
}
