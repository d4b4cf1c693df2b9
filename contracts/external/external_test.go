package external_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{CRDs: crds.All()}, &env))
}

func TestGet_ReadsAtTheDiscoveredVersion(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "external")
	for _, gvk := range []struct {
		kind, group, wantAPIVersion string
		contract                    contract.ContractVersion
	}{
		{"GenericInfrastructureMachine", "infrastructure.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io/v1beta2", contract.V1Beta2},
		{"GenericLegacyInfrastructureMachine", "infrastructure.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io/v1beta1", contract.V1Beta1},
	} {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion(gvk.wantAPIVersion)
		obj.SetKind(gvk.kind)
		obj.SetNamespace(ns)
		obj.SetName("m-" + string(gvk.contract))
		require.NoError(t, env.Client.Create(ctx, obj))

		got, v, err := external.Get(ctx, env.Client, clusterv1.ContractVersionedObjectReference{
			APIGroup: gvk.group, Kind: gvk.kind, Name: obj.GetName(),
		}, ns)
		require.NoError(t, err)
		require.Equal(t, gvk.contract, v.Contract)
		require.Equal(t, gvk.wantAPIVersion, got.GetAPIVersion())
		require.Equal(t, obj.GetUID(), got.GetUID())
	}

	_, _, err := external.Get(ctx, env.Client, clusterv1.ContractVersionedObjectReference{
		APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: "absent",
	}, ns)
	require.True(t, apierrors.IsNotFound(err), "a missing object is NotFound through the wrapping: %v", err)
	require.ErrorContains(t, err, "reading GenericInfrastructureMachine "+ns+"/absent")
}

// startTracker runs a manager with a controller whose requests arrive on seen, and a Tracker
// adding watches to it; the manager stops with the test.
func startTracker(t *testing.T, name string) (ctx context.Context, tracker *external.Tracker, seen chan string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	require.NoError(t, err)
	seen = make(chan string, 10)
	c, err := controller.New(name, mgr, controller.Options{
		SkipNameValidation: ptr.To(true),
		Reconciler: reconcile.Func(func(_ context.Context, r reconcile.Request) (reconcile.Result, error) {
			seen <- r.Name
			return reconcile.Result{}, nil
		}),
	})
	require.NoError(t, err)
	tracker = &external.Tracker{Controller: c, Cache: mgr.GetCache(), Handler: &handler.EnqueueRequestForObject{}}
	go func() { _ = mgr.Start(ctx) }()
	require.True(t, mgr.GetCache().WaitForCacheSync(ctx))
	return ctx, tracker, seen
}

func TestTracker_WatchesEachKindOnceAndDeliversEvents(t *testing.T) {
	ns := env.CreateNamespace(t, "tracker")
	ctx, tracker, seen := startTracker(t, "tracker-test")

	obj := crds.New(crds.GenericInfrastructureMachineGVK, ns, "watched")
	require.NoError(t, tracker.Watch(logr.Discard(), obj))
	require.NoError(t, tracker.Watch(logr.Discard(), obj), "a second call is a no-op")
	require.True(t, tracker.Watching(crds.GenericInfrastructureMachineGVK.GroupKind()))
	require.False(t, tracker.Watching(crds.GenericBootstrapConfigGVK.GroupKind()))

	require.NoError(t, env.Client.Create(ctx, obj))
	deadline := time.After(30 * time.Second)
	for got := ""; got != "watched"; { // objects of other tests arrive too (initial list)
		select {
		case got = <-seen:
		case <-deadline:
			t.Fatal("no event for the created object within 30s")
		}
	}
}

// A provider upgrade that moves its contract label to a newer version moves the core's reads to
// that version's informer; the events must come from it too, or a reconcile woken by the old
// version's informer reads the object before the new informer has the change and waits forever.
func TestTracker_WatchesEachVersionTheReadsUse(t *testing.T) {
	ns := env.CreateNamespace(t, "tracker-versions")
	ctx, tracker, seen := startTracker(t, "tracker-versions-test")

	v2 := crds.GenericMultiVersionInfrastructureMachineGVK
	v1 := v2.GroupKind().WithVersion("v1beta1")
	require.NoError(t, tracker.Watch(logr.Discard(), crds.New(v1, ns, "x")))
	require.True(t, tracker.WatchingVersion(v1))
	require.False(t, tracker.WatchingVersion(v2))
	require.NoError(t, tracker.Watch(logr.Discard(), crds.New(v2, ns, "x")))
	require.True(t, tracker.WatchingVersion(v2), "the version the reads moved to is watched too")
	require.True(t, tracker.Watching(v2.GroupKind()))

	require.NoError(t, env.Client.Create(ctx, crds.New(v2, ns, "multi")))
	deadline := time.After(30 * time.Second)
	for got := ""; got != "multi"; {
		select {
		case got = <-seen:
		case <-deadline:
			t.Fatal("no event for the created object within 30s")
		}
	}
}

func TestCloneTemplate_CreatesTheTemplatedObject(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "clone")
	tmpl := crds.New(crds.GenericInfrastructureMachineTemplateGVK, ns, "workers")
	require.NoError(t, unstructured.SetNestedField(tmpl.Object, map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"from-template": "yes"}},
		"spec":     map[string]any{"image": "node:v1.37.2"},
	}, "spec", "template"))
	require.NoError(t, env.Client.Create(ctx, tmpl))

	owner := metav1.OwnerReference{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "MachineSet", Name: "ms", UID: "1234"}
	out, err := external.CloneTemplate(ctx, env.Client, external.CloneInput{
		Template:     clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachineTemplate", Name: "workers"},
		Namespace:    ns,
		GenerateName: "workers-",
		ClusterName:  "c1",
		Labels:       map[string]string{"extra": "1"},
		Owner:        &owner,
	})
	require.NoError(t, err)
	got := crds.New(crds.GenericInfrastructureMachineGVK, ns, out.GetName())
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(got), got))
	image, _, _ := unstructured.NestedString(got.Object, "spec", "image")
	require.Equal(t, "node:v1.37.2", image)
	require.Equal(t, map[string]string{"from-template": "yes", "extra": "1", clusterv1.ClusterNameLabel: "c1"}, got.GetLabels())
	require.Equal(t, "workers", got.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation])
	require.Equal(t, "GenericInfrastructureMachineTemplate.infrastructure.cluster.x-k8s.io",
		got.GetAnnotations()[clusterv1.TemplateClonedFromGroupKindAnnotation])
	require.Equal(t, []metav1.OwnerReference{owner}, got.GetOwnerReferences())
	require.Equal(t, external.RefTo(got).Kind, "GenericInfrastructureMachine")

	_, err = external.CloneTemplate(ctx, env.Client, external.CloneInput{
		Template:  clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: got.GetName()},
		Namespace: ns, GenerateName: "x-", ClusterName: "c1",
	})
	require.ErrorContains(t, err, "is not a template")
}
