// Package controller_test holds checks every core controller must pass alike.
package controller_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/controller/cluster"
	"capstan.dev/core/internal/controller/machine"
	"capstan.dev/core/internal/controller/machinedeployment"
	"capstan.dev/core/internal/controller/machinehealthcheck"
	"capstan.dev/core/internal/controller/machinepool"
	"capstan.dev/core/internal/controller/machineset"
)

// healthyConditions is what a working object reports before its Cluster is paused.
func healthyConditions() []metav1.Condition {
	now := metav1.Now()
	return []metav1.Condition{
		{Type: clusterv1.AvailableCondition, Status: metav1.ConditionTrue, Reason: clusterv1.AvailableReason, LastTransitionTime: now},
		{Type: clusterv1.PausedCondition, Status: metav1.ConditionFalse, Reason: clusterv1.NotPausedReason, LastTransitionTime: now},
		{Type: clusterv1.ReadyCondition, Status: metav1.ConditionTrue, Reason: clusterv1.ReadyReason, LastTransitionTime: now},
	}
}

// TestCoreControllers_WhilePausedOnlyPausedIsWritten reconciles one object of every
// core kind whose Cluster has spec.paused, each already reporting Ready and
// Available: afterwards Paused is True and the rest of the status is exactly as
// it was (no condition or phase recomputed from a reconcile that read nothing).
func TestCoreControllers_WhilePausedOnlyPausedIsWritten(t *testing.T) {
	const ns = "default"
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{clusterv1.ClusterNameLabel: "c1"}}
	}
	pausedCluster := func() *clusterv1.Cluster {
		c := &clusterv1.Cluster{ObjectMeta: meta("c1"), Spec: clusterv1.ClusterSpec{Paused: ptr.To(true)}}
		c.Status.Conditions = healthyConditions()
		c.Status.Phase = string(clusterv1.ClusterPhaseProvisioned)
		return c
	}
	for _, tc := range []struct {
		kind string
		obj  func() client.Object
		// reconciler builds the kind's reconciler over c.
		reconciler func(c client.Client) reconcile.Reconciler
	}{
		{kind: "Cluster", obj: func() client.Object { return pausedCluster() },
			reconciler: func(c client.Client) reconcile.Reconciler {
				return &cluster.Reconciler{Client: c, APIReader: c, Health: neverConnected{}}
			}},
		{kind: "Machine", obj: func() client.Object {
			m := &clusterv1.Machine{ObjectMeta: meta("m1"), Spec: clusterv1.MachineSpec{ClusterName: "c1", ProviderID: "generic:////m1"}}
			m.Finalizers = []string{clusterv1.MachineFinalizer}
			m.Status.Conditions = healthyConditions()
			m.Status.Phase = string(clusterv1.MachinePhaseRunning)
			m.Status.NodeRef = clusterv1.MachineNodeReference{Name: "n1"}
			return m
		}, reconciler: func(c client.Client) reconcile.Reconciler { return &machine.Reconciler{Client: c} }},
		{kind: "MachineSet", obj: func() client.Object {
			ms := &clusterv1.MachineSet{ObjectMeta: meta("ms1"), Spec: clusterv1.MachineSetSpec{ClusterName: "c1", Replicas: ptr.To[int32](1)}}
			ms.Finalizers = []string{clusterv1.MachineSetFinalizer}
			ms.Status.Conditions = healthyConditions()
			return ms
		}, reconciler: func(c client.Client) reconcile.Reconciler { return &machineset.Reconciler{Client: c, APIReader: c} }},
		{kind: "MachineDeployment", obj: func() client.Object {
			md := &clusterv1.MachineDeployment{ObjectMeta: meta("md1"), Spec: clusterv1.MachineDeploymentSpec{ClusterName: "c1", Replicas: ptr.To[int32](1)}}
			md.Finalizers = []string{clusterv1.MachineDeploymentFinalizer}
			md.Status.Conditions = healthyConditions()
			return md
		}, reconciler: func(c client.Client) reconcile.Reconciler {
			return &machinedeployment.Reconciler{Client: c, APIReader: c}
		}},
		{kind: "MachineHealthCheck", obj: func() client.Object {
			mhc := &clusterv1.MachineHealthCheck{ObjectMeta: meta("mhc1"), Spec: clusterv1.MachineHealthCheckSpec{ClusterName: "c1"}}
			mhc.Status.Conditions = healthyConditions()
			return mhc
		}, reconciler: func(c client.Client) reconcile.Reconciler { return &machinehealthcheck.Reconciler{Client: c} }},
		{kind: "MachinePool", obj: func() client.Object {
			mp := &clusterv1.MachinePool{ObjectMeta: meta("mp1"), Spec: clusterv1.MachinePoolSpec{ClusterName: "c1", Replicas: ptr.To[int32](1)}}
			mp.Status.Conditions = healthyConditions()
			return mp
		}, reconciler: func(c client.Client) reconcile.Reconciler { return &machinepool.Reconciler{Client: c} }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			scheme := runtime.NewScheme()
			require.NoError(t, clientgoscheme.AddToScheme(scheme))
			require.NoError(t, clusterv1.AddToScheme(scheme))
			obj := tc.obj()
			objs := []client.Object{obj}
			if tc.kind != "Cluster" {
				objs = append(objs, pausedCluster())
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(objs...).Build()
			before := obj.DeepCopyObject().(client.Object)
			require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), before))

			_, err := tc.reconciler(c).Reconcile(ctrl.LoggerInto(context.Background(), ctrl.Log), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			require.NoError(t, err)

			after := obj.DeepCopyObject().(client.Object)
			require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), after))
			require.True(t, conditions.IsTrue(after.(conditions.Getter), clusterv1.PausedCondition), "Paused is written")
			require.Empty(t, cmp.Diff(statusWithoutPaused(t, before), statusWithoutPaused(t, after)), "nothing but Paused changes")
		})
	}
}

// neverConnected is a ClusterCache that never reached the workload cluster.
type neverConnected struct{}

func (neverConnected) GetHealthCheckingState(client.ObjectKey) remote.HealthCheckingState {
	return remote.HealthCheckingState{}
}

func (neverConnected) GetClusterSource(string, func(context.Context, client.ObjectKey) []reconcile.Request, ...remote.ClusterSourceOption) source.Source {
	return nil
}

// statusWithoutPaused is obj's status with the Paused condition left out.
func statusWithoutPaused(t *testing.T, obj client.Object) map[string]any {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	status, _ := u["status"].(map[string]any)
	if conds, ok := status["conditions"].([]any); ok {
		var kept []any
		for _, c := range conds {
			if c.(map[string]any)["type"] != clusterv1.PausedCondition {
				kept = append(kept, c)
			}
		}
		status["conditions"] = kept
	}
	return status
}
