package topologyplan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/template"
	"capstan.dev/core/internal/controller/clusterclass"
	"capstan.dev/core/internal/controller/topology"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

// The suite installs the CRDs and admission policies of all three providers (core, kubeadm,
// docker), so the examples are applied as a user applies them.
func TestMain(m *testing.M) {
	root := filepath.Join("..", "..", "..", "..")
	// The runtime types too: external patches' extensions are found through ExtensionConfigs.
	scheme, err := envtest.DefaultSchemeWith(runtimev1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{Scheme: scheme, CRDDirectoryPaths: []string{
		filepath.Join(root, "bootstrap-kubeadm", "config", "crd", "bases"),
		filepath.Join(root, "infrastructure-docker", "config", "crd", "bases"),
	}}, &env))
}

const timeout = 90 * time.Second

// example reads examples/<name> with every object moved to ns.
func example(t *testing.T, name, ns string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "examples", name))
	require.NoError(t, err)
	objs, err := template.Objects(data)
	require.NoError(t, err)
	for _, o := range objs {
		o.SetNamespace(ns)
	}
	return objs
}

// quickStart returns the quick-start class with its templates, and the development Cluster, in ns
// (the example's other objects, its CNI ClusterResourceSet and ConfigMap, play no part here).
func quickStart(t *testing.T, ns string) (class []*unstructured.Unstructured, cluster *unstructured.Unstructured) {
	t.Helper()
	return example(t, "clusterclass-quick-start.yaml", ns), theCluster(t, example(t, "cluster-development.yaml", ns))
}

// theCluster is the one Cluster among a manifest's objects (shipped manifests carry their CNI's
// ClusterResourceSet and ConfigMap beside it).
func theCluster(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	var clusters []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "Cluster" {
			clusters = append(clusters, o)
		}
	}
	require.Len(t, clusters, 1)
	return clusters[0]
}

func create(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		require.NoError(t, env.Client.Create(context.Background(), o.DeepCopy()), "creating %s %s", o.GetKind(), o.GetName())
	}
}

// startControllers runs the ClusterClass and topology controllers until the test ends.
func startControllers(t *testing.T) {
	t.Helper()
	mgr := coretest.NewManager(t, env)
	opts := controller.Options{SkipNameValidation: ptr.To(true)}
	ctx := context.Background()
	require.NoError(t, (&clusterclass.Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, opts))
	require.NoError(t, (&topology.Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, opts))
	coretest.StartManager(t, mgr)
}

// waitTopologyReconciled waits until the Cluster's TopologyReconciled condition is True.
func waitTopologyReconciled(t *testing.T, ns, name string) *clusterv1.Cluster {
	t.Helper()
	c := &clusterv1.Cluster{}
	envtest.WaitFor(t, timeout, "Cluster "+name+" TopologyReconciled", func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, c); err != nil {
			return false, err
		}
		cond := conditions.Get(c, clusterv1.ClusterTopologyReconciledCondition)
		if cond == nil || cond.Status != metav1.ConditionTrue {
			return false, fmt.Errorf("TopologyReconciled is %+v", cond)
		}
		return true, nil
	})
	return c
}

// get reads the object apiVersion/kind ns/name.
func get(t *testing.T, apiVersion, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u), "reading %s %s", kind, name)
	return u
}

func nested[T any](t *testing.T, u *unstructured.Unstructured, path ...string) T {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	require.NoError(t, err)
	require.True(t, found, "%s %s has no %v", u.GetKind(), u.GetName(), path)
	typed, ok := v.(T)
	require.True(t, ok, "%s %s %v is a %T", u.GetKind(), u.GetName(), path, v)
	return typed
}
