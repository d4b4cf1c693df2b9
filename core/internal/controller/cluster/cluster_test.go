package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

func TestCluster_CopiesInfrastructureAndControlPlaneState(t *testing.T) {
	startControllers(t, false)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "cluster")
	infra := newGeneric(t, crds.New(crds.GenericInfrastructureClusterGVK, ns, "infra"))
	cp := newGeneric(t, crds.New(crds.GenericControlPlaneGVK, ns, "cp"), func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas")
	})
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec:       clusterv1.ClusterSpec{InfrastructureRef: refTo(infra), ControlPlaneRef: refTo(cp)},
	}
	require.NoError(t, env.Client.Create(ctx, c))

	got := waitCondition(t, c, clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionFalse,
		"Waiting for GenericInfrastructureCluster infra to report status.initialization.provisioned")
	require.Equal(t, string(clusterv1.ClusterPhaseProvisioning), got.Status.Phase)
	require.Contains(t, got.Finalizers, clusterv1.ClusterFinalizer)
	for _, obj := range []*unstructured.Unstructured{infra, cp} {
		cur := obj.DeepCopy()
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur))
		require.Equal(t, "c1", cur.GetLabels()[clusterv1.ClusterNameLabel])
		require.Len(t, cur.GetOwnerReferences(), 1)
		require.Equal(t, got.UID, cur.GetOwnerReferences()[0].UID)
	}

	// The infrastructure provider reports the endpoint and failure domains.
	envtest.WaitFor(t, 30*time.Second, "infra endpoint set", func() (bool, error) {
		cur := infra.DeepCopy()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(infra), cur); err != nil {
			return false, err
		}
		_ = unstructured.SetNestedMap(cur.Object, map[string]any{"host": "127.0.0.1", "port": int64(40123)}, "spec", "controlPlaneEndpoint")
		return true, env.Client.Update(ctx, cur)
	})
	coretest.SetStatus(t, env, infra, map[string]any{
		"initialization.provisioned": true,
		"failureDomains":             []any{map[string]any{"name": "fd-b"}, map[string]any{"name": "fd-a", "controlPlane": true}},
	})
	got = waitCondition(t, c, clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionTrue, "")
	require.Equal(t, clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 40123}, got.Spec.ControlPlaneEndpoint)
	require.Equal(t, string(clusterv1.ClusterPhaseProvisioned), got.Status.Phase)
	require.Equal(t, []clusterv1.FailureDomain{{Name: "fd-a", ControlPlane: ptr.To(true)}, {Name: "fd-b"}}, got.Status.FailureDomains)

	// The control plane initializes and reports replicas and availability.
	coretest.SetStatus(t, env, cp, map[string]any{
		"initialization.controlPlaneInitialized": true, "replicas": int64(3), "readyReplicas": int64(2),
		"availableReplicas": int64(2), "upToDateReplicas": int64(3),
		"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "Available",
			"message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
	})
	got = waitCondition(t, c, clusterv1.ClusterControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	require.True(t, conditions.IsTrue(got, clusterv1.ClusterControlPlaneInitializedCondition))
	require.Equal(t, &clusterv1.ClusterControlPlaneStatus{DesiredReplicas: ptr.To[int32](3), Replicas: ptr.To[int32](3),
		ReadyReplicas: ptr.To[int32](2), AvailableReplicas: ptr.To[int32](2), UpToDateReplicas: ptr.To[int32](3)}, got.Status.ControlPlane)
	require.True(t, conditions.IsTrue(got, clusterv1.ClusterWorkersAvailableCondition), "no workers: nothing to wait for")
}

func TestCluster_WithoutControlPlaneProviderWritesKubeconfigAndInitializesFromMachines(t *testing.T) {
	startControllers(t, false)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "nocp")
	infra := newGeneric(t, crds.New(crds.GenericInfrastructureClusterGVK, ns, "infra"))
	coretest.SetStatus(t, env, infra, map[string]any{"initialization.provisioned": true})
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c2", Namespace: ns},
		Spec: clusterv1.ClusterSpec{ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.1.2.3", Port: 6443},
			InfrastructureRef: refTo(infra)},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	waitCondition(t, c, clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionFalse,
		"Waiting for the first control-plane Machine to get a Node")

	// With the cluster CA in place the Cluster writes the kubeconfig.
	caCert, caKey := newCA(t)
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secret.Name("c2", secret.ClusterCA), Namespace: ns},
		Type:       clusterv1.ClusterSecretType,
		Data:       map[string][]byte{secret.TLSCrtDataName: caCert, secret.TLSKeyDataName: caKey},
	}))
	kc := &corev1.Secret{}
	envtest.WaitFor(t, 30*time.Second, "the kubeconfig Secret", func() (bool, error) {
		return true, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "c2-kubeconfig"}, kc)
	})
	require.Equal(t, clusterv1.ClusterSecretType, kc.Type)
	require.Equal(t, "c2", kc.Labels[clusterv1.ClusterNameLabel])
	cfg, err := clientcmd.Load(kc.Data["value"])
	require.NoError(t, err)
	require.Equal(t, "https://10.1.2.3:6443", cfg.Clusters["c2"].Server)

	// A control-plane Machine with a Node initializes the control plane.
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "cp-0", Namespace: ns,
			Labels: map[string]string{clusterv1.ClusterNameLabel: "c2", clusterv1.MachineControlPlaneLabel: ""}},
		Spec: clusterv1.MachineSpec{ClusterName: "c2", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("x")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: "cp-0"}},
	}
	require.NoError(t, env.Client.Create(ctx, m))
	envtest.UpdateStatus(t, env.Client, m, func() { m.Status.NodeRef = clusterv1.MachineNodeReference{Name: "node-0"} })
	got := waitCondition(t, c, clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionTrue, "")
	require.True(t, ptr.Deref(got.Status.Initialization.ControlPlaneInitialized, false))
}

func TestCluster_PausedClusterIsLeftAlone(t *testing.T) {
	startControllers(t, false)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "paused")
	infra := newGeneric(t, crds.New(crds.GenericInfrastructureClusterGVK, ns, "infra"))
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c3", Namespace: ns},
		Spec:       clusterv1.ClusterSpec{Paused: ptr.To(true), InfrastructureRef: refTo(infra)},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	got := waitCondition(t, c, clusterv1.PausedCondition, metav1.ConditionTrue, "set it to false to resume")
	require.Empty(t, got.Finalizers)
	cur := infra.DeepCopy()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(infra), cur))
	require.Empty(t, cur.GetOwnerReferences(), "a paused Cluster adopts nothing")

	envtest.Update(t, env.Client, got, func() { got.Spec.Paused = ptr.To(false) })
	waitCondition(t, c, clusterv1.PausedCondition, metav1.ConditionFalse, "")
	envtest.WaitFor(t, 30*time.Second, "the infra cluster to be adopted after unpausing", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(infra), cur)
		return err == nil && len(cur.GetOwnerReferences()) == 1, err
	})
}

// holdFinalizer keeps a generic object around after deletion until the test
// releases it, so the order of deletions can be observed.
const holdFinalizer = "test.capstan.dev/hold"

func TestCluster_DeletionRemovesDescendantsInOrder(t *testing.T) {
	startControllers(t, true)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "delete")
	hold := func(u *unstructured.Unstructured) { u.SetFinalizers([]string{holdFinalizer}) }
	infra := newGeneric(t, crds.New(crds.GenericInfrastructureClusterGVK, ns, "infra"), hold)
	cp := newGeneric(t, crds.New(crds.GenericControlPlaneGVK, ns, "cp"), hold)
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "doomed", Namespace: ns},
		Spec:       clusterv1.ClusterSpec{InfrastructureRef: refTo(infra), ControlPlaneRef: refTo(cp)},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	var workers []*clusterv1.Machine
	for _, name := range []string{"w-0", "w-1"} {
		infraMachine := newGeneric(t, crds.New(crds.GenericInfrastructureMachineGVK, ns, name), hold)
		m := &clusterv1.Machine{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: clusterv1.MachineSpec{ClusterName: c.Name, Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("data")},
				InfrastructureRef: refTo(infraMachine)},
		}
		require.NoError(t, env.Client.Create(ctx, m))
		workers = append(workers, m)
		t.Cleanup(func() { releaseHold(t, infraMachine) })
	}
	md := &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "md", Namespace: ns, Labels: map[string]string{clusterv1.ClusterNameLabel: c.Name}},
		Spec: clusterv1.MachineDeploymentSpec{ClusterName: c.Name, Replicas: ptr.To[int32](0),
			Selector: clusterv1.LabelSelector{MatchLabels: map[string]string{"pool": "a"}},
			Template: clusterv1.MachineTemplateSpec{ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"pool": "a"}},
				Spec: workers[0].Spec}},
	}
	require.NoError(t, env.Client.Create(ctx, md))
	envtest.WaitFor(t, 30*time.Second, "the Cluster and its Machines to carry their finalizers", func() (bool, error) {
		if got, err := getCluster(c); err != nil || len(got.Finalizers) == 0 {
			return false, err
		}
		for _, m := range workers {
			cur := &clusterv1.Machine{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), cur); err != nil || len(cur.Finalizers) == 0 {
				return false, err
			}
		}
		return true, nil
	})

	require.NoError(t, env.Client.Delete(ctx, c))
	// Step 1: workers first. Their infrastructure is held, so they stay.
	waitCondition(t, c, clusterv1.ClusterDeletingCondition, metav1.ConditionTrue, "Waiting for Machines w-0, w-1 to be deleted")
	requireNotDeleting(t, cp)
	requireNotDeleting(t, infra)
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(md), &clusterv1.MachineDeployment{})
	require.True(t, apierrors.IsNotFound(err), "the MachineDeployment was deleted: %v", err)

	for _, name := range []string{"w-0", "w-1"} {
		releaseHold(t, crds.New(crds.GenericInfrastructureMachineGVK, ns, name))
	}
	// Step 2: the control plane, once no worker is left.
	waitCondition(t, c, clusterv1.ClusterDeletingCondition, metav1.ConditionTrue, "Waiting for GenericControlPlane cp to be deleted")
	requireNotDeleting(t, infra)
	releaseHold(t, cp)
	// Step 3: the infrastructure, then the finalizer.
	waitCondition(t, c, clusterv1.ClusterDeletingCondition, metav1.ConditionTrue, "Waiting for GenericInfrastructureCluster infra to be deleted")
	releaseHold(t, infra)
	envtest.WaitFor(t, 30*time.Second, "the Cluster to be gone", func() (bool, error) {
		_, err := getCluster(c)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

func requireNotDeleting(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	cur := obj.DeepCopy()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), cur))
	require.Nil(t, cur.GetDeletionTimestamp(), "%s %s must not be deleted yet", cur.GetKind(), cur.GetName())
}

// releaseHold removes the test finalizer once the object is being deleted.
func releaseHold(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	envtest.WaitFor(t, 30*time.Second, "to release "+obj.GetKind()+" "+obj.GetName(), func() (bool, error) {
		cur := obj.DeepCopy()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		}
		cur.SetFinalizers(nil)
		return true, env.Client.Update(ctx, cur)
	})
}

// TestCluster_TopologyClusterIsGatedByItsClassAvailabilityGates: a topology Cluster without
// availabilityGates of its own is held by its ClusterClass's, as upstream.
func TestCluster_TopologyClusterIsGatedByItsClassAvailabilityGates(t *testing.T) {
	startControllers(t, false)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "cluster")
	tmpl := func(kind string) clusterv1.ClusterClassTemplateReference {
		return clusterv1.ClusterClassTemplateReference{APIVersion: crds.InfrastructureGroupVersion.String(), Kind: kind, Name: "t"}
	}
	class := &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gated", Namespace: ns},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure:    clusterv1.InfrastructureClass{TemplateRef: tmpl("GenericInfrastructureClusterTemplate")},
			ControlPlane:      clusterv1.ControlPlaneClass{TemplateRef: clusterv1.ClusterClassTemplateReference{APIVersion: crds.GenericControlPlaneGVK.GroupVersion().String(), Kind: "GenericControlPlaneTemplate", Name: "t"}},
			AvailabilityGates: []clusterv1.ClusterAvailabilityGate{{ConditionType: "example.com/Backup"}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, class))
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec:       clusterv1.ClusterSpec{Topology: clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: class.Name}, Version: "v1.37.2"}},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	waitCondition(t, c, clusterv1.ClusterAvailableCondition, metav1.ConditionFalse, "example.com/Backup not reported yet (spec.availabilityGates)")
}
