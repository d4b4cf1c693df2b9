// Package ctltest creates, in an envtest API server, the objects capstanctl's
// envtest suites describe, read kubeconfigs of and delete: Clusters referencing
// contracts' generic provider objects, Machines, MachineDeployments and
// MachinePools, with the conditions a controller would have written. No
// controller runs in those suites, so what the objects say is exactly what the
// test wrote. It is imported by tests only.
package ctltest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// Condition builds a condition that changed age ago.
func Condition(t string, s metav1.ConditionStatus, reason, msg string, age time.Duration) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(time.Now().Add(-age).Truncate(time.Second))}
}

// Cluster creates a Cluster named name with a GenericInfrastructureCluster and a
// GenericControlPlane of the same name, and writes conds as its status.
func Cluster(t *testing.T, env *envtest.Environment, namespace, name string, conds ...metav1.Condition) *clusterv1.Cluster {
	t.Helper()
	ctx := context.Background()
	infra := crds.New(crds.GenericInfrastructureClusterGVK, namespace, name)
	require.NoError(t, env.Client.Create(ctx, infra))
	cp := crds.New(crds.GenericControlPlaneGVK, namespace, name)
	require.NoError(t, env.Client.Create(ctx, cp))
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: refTo(crds.GenericInfrastructureClusterGVK.Group, crds.GenericInfrastructureClusterGVK.Kind, name),
			ControlPlaneRef:   refTo(crds.GenericControlPlaneGVK.Group, crds.GenericControlPlaneGVK.Kind, name),
		},
	}
	require.NoError(t, env.Client.Create(ctx, c))
	if len(conds) > 0 {
		envtest.UpdateStatus(t, env.Client, c, func() { c.Status.Conditions = conds })
	}
	return c
}

// ProviderConditions writes conds as status.conditions of a provider object.
func ProviderConditions(t *testing.T, env *envtest.Environment, obj *unstructured.Unstructured, conds ...metav1.Condition) {
	t.Helper()
	list := make([]any, 0, len(conds))
	for _, c := range conds {
		list = append(list, map[string]any{
			"type": c.Type, "status": string(c.Status), "reason": c.Reason, "message": c.Message,
			"lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339),
		})
	}
	envtest.UpdateStatus(t, env.Client, obj, func() {
		require.NoError(t, unstructured.SetNestedSlice(obj.Object, list, "status", "conditions"))
	})
}

// Machine creates a Machine of cluster with labels and writes conds as its status.
func Machine(t *testing.T, env *envtest.Environment, cluster *clusterv1.Cluster, name string, labels map[string]string, conds ...metav1.Condition) *clusterv1.Machine {
	t.Helper()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster.Namespace, Name: name, Labels: labels},
		Spec: clusterv1.MachineSpec{
			ClusterName:       cluster.Name,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
			InfrastructureRef: refTo(crds.GenericInfrastructureMachineGVK.Group, crds.GenericInfrastructureMachineGVK.Kind, name),
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), m))
	if len(conds) > 0 {
		envtest.UpdateStatus(t, env.Client, m, func() { m.Status.Conditions = conds })
	}
	return m
}

// MachineDeployment creates a MachineDeployment of cluster and writes conds as its status.
func MachineDeployment(t *testing.T, env *envtest.Environment, cluster *clusterv1.Cluster, name string, conds ...metav1.Condition) *clusterv1.MachineDeployment {
	t.Helper()
	md := &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster.Namespace, Name: name},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: cluster.Name,
			Replicas:    ptr.To[int32](0),
			Selector:    clusterv1.LabelSelector{MatchLabels: map[string]string{clusterv1.MachineDeploymentNameLabel: name}},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{clusterv1.MachineDeploymentNameLabel: name}},
				Spec:       machineSpec(cluster.Name, name),
			},
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), md))
	if len(conds) > 0 {
		envtest.UpdateStatus(t, env.Client, md, func() { md.Status.Conditions = conds })
	}
	return md
}

// MachinePool creates a MachinePool of cluster and writes conds as its status.
func MachinePool(t *testing.T, env *envtest.Environment, cluster *clusterv1.Cluster, name string, conds ...metav1.Condition) *clusterv1.MachinePool {
	t.Helper()
	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster.Namespace, Name: name},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: cluster.Name,
			Replicas:    ptr.To[int32](0),
			Template:    clusterv1.MachineTemplateSpec{Spec: machineSpec(cluster.Name, name)},
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), mp))
	if len(conds) > 0 {
		envtest.UpdateStatus(t, env.Client, mp, func() { mp.Status.Conditions = conds })
	}
	return mp
}

// Get reads obj again.
func Get(t *testing.T, env *envtest.Environment, obj client.Object) {
	t.Helper()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
}

func machineSpec(cluster, name string) clusterv1.MachineSpec {
	return clusterv1.MachineSpec{
		ClusterName: cluster,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: refTo(crds.GenericBootstrapConfigTemplateGVK.Group,
			crds.GenericBootstrapConfigTemplateGVK.Kind, name)},
		InfrastructureRef: refTo(crds.GenericInfrastructureMachineTemplateGVK.Group,
			crds.GenericInfrastructureMachineTemplateGVK.Kind, name),
	}
}

func refTo(group, kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: kind, Name: name}
}
