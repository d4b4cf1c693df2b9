package machinepool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

func TestPhase_FollowsUpstreamMachinePoolPhases(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name   string
		mutate func(*clusterv1.MachinePool)
		want   clusterv1.MachinePoolPhase
	}{
		{"new", func(*clusterv1.MachinePool) {}, clusterv1.MachinePoolPhasePending},
		{"bootstrap data created", func(mp *clusterv1.MachinePool) {
			mp.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
		}, clusterv1.MachinePoolPhaseProvisioning},
		{"nodes before the infrastructure reports provisioned", func(mp *clusterv1.MachinePool) {
			mp.Status.NodeRefs = []corev1.ObjectReference{{Name: "n"}}
		}, clusterv1.MachinePoolPhaseProvisioned},
		{"provisioned, none ready", func(mp *clusterv1.MachinePool) {
			mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		}, clusterv1.MachinePoolPhaseScalingUp},
		{"as many ready as desired", func(mp *clusterv1.MachinePool) {
			mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
			mp.Status.ReadyReplicas = ptr.To[int32](3)
		}, clusterv1.MachinePoolPhaseRunning},
		{"more ready than desired", func(mp *clusterv1.MachinePool) {
			mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
			mp.Status.ReadyReplicas = ptr.To[int32](4)
		}, clusterv1.MachinePoolPhaseScalingDown},
		{"an autoscaler owns the count", func(mp *clusterv1.MachinePool) {
			mp.Annotations = map[string]string{clusterv1.ReplicasManagedByAnnotation: "cluster-autoscaler"}
			mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
			mp.Status.ReadyReplicas = ptr.To[int32](1)
		}, clusterv1.MachinePoolPhaseScaling},
		{"deleting", func(mp *clusterv1.MachinePool) {
			mp.DeletionTimestamp = &now
			mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		}, clusterv1.MachinePoolPhaseDeleting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mp := &clusterv1.MachinePool{Spec: clusterv1.MachinePoolSpec{Replicas: ptr.To[int32](3)}}
			tt.mutate(mp)
			require.Equal(t, tt.want, phase(mp))
		})
	}
}

func TestDesiredReplicas_DefaultsToOneUnlessAnAutoscalerOwnsIt(t *testing.T) {
	mp := &clusterv1.MachinePool{}
	require.Equal(t, int32(1), desiredReplicas(mp))
	mp.Annotations = map[string]string{clusterv1.ReplicasManagedByAnnotation: ""}
	mp.Status.Replicas = ptr.To[int32](7)
	require.Equal(t, int32(7), desiredReplicas(mp))
	mp.Spec.Replicas = ptr.To[int32](2)
	require.Equal(t, int32(2), desiredReplicas(mp))
}

func TestCountNodes_ReadyAvailableAfterMinReadySecondsUpToDateByKubeletVersion(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	node := func(ready corev1.ConditionStatus, since time.Duration, version string) *corev1.Node {
		return &corev1.Node{Status: corev1.NodeStatus{
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: version},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastTransitionTime: metav1.NewTime(now.Add(-since))}},
		}}
	}
	nodes := []*corev1.Node{
		node(corev1.ConditionTrue, time.Minute, "v1.37.2"),
		node(corev1.ConditionTrue, 10*time.Second, "v1.37.2"),
		node(corev1.ConditionFalse, time.Hour, "v1.36.0"),
		{},
	}
	require.Equal(t, nodeCounts{ready: 2, available: 1, upToDate: 2, nextAvailable: 20 * time.Second},
		countNodes(nodes, 30, "v1.37.2", now))
	require.Equal(t, nodeCounts{ready: 2, available: 2, upToDate: 4}, countNodes(nodes, 0, "", now))
}

func TestIsRetired_OnlyTheRecordedNodeWhoseProviderIDLeftTheList(t *testing.T) {
	ref := corev1.ObjectReference{Name: "n", UID: "u1"}
	node := func(uid, providerID string) *corev1.Node {
		n := &corev1.Node{Spec: corev1.NodeSpec{ProviderID: providerID}}
		n.Name, n.UID = "n", types.UID(uid)
		return n
	}
	listed := sets.New("p1")
	require.False(t, isRetired(ref, node("u1", "p1"), listed), "still listed")
	require.True(t, isRetired(ref, node("u1", "p2"), listed), "left the list")
	require.False(t, isRetired(ref, node("u2", "p2"), listed), "the name now belongs to another Node")
	require.False(t, isRetired(ref, node("u1", ""), listed), "a Node without providerID is never judged")
}

func TestInfraPoolAccessors_ReadTheInfraMachinePoolContract(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind":   "GenericInfrastructureMachinePool",
		"spec":   map[string]any{"providerIDList": []any{"a", "b"}},
		"status": map[string]any{"replicas": int64(2), "ready": true, "initialization": map[string]any{"provisioned": false}},
	}}
	ids, found, err := infraPoolProviderIDList(u)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []string{"a", "b"}, ids)
	replicas, err := infraPoolReplicas(u)
	require.NoError(t, err)
	require.Equal(t, int32(2), *replicas)
	provisioned, err := infraPoolProvisioned(u, contract.V1Beta2)
	require.NoError(t, err)
	require.False(t, provisioned, "v1beta2 reads status.initialization.provisioned")
	provisioned, err = infraPoolProvisioned(u, contract.V1Beta1)
	require.NoError(t, err)
	require.True(t, provisioned, "v1beta1 reads status.ready")

	empty := &unstructured.Unstructured{Object: map[string]any{}}
	_, found, err = infraPoolProviderIDList(empty)
	require.NoError(t, err)
	require.False(t, found)
	replicas, err = infraPoolReplicas(empty)
	require.NoError(t, err)
	require.Nil(t, replicas)
	provisioned, err = infraPoolProvisioned(empty, contract.V1Beta2)
	require.NoError(t, err)
	require.False(t, provisioned)

	bad := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"providerIDList": []any{"a", int64(3)}}, "status": map[string]any{"replicas": "two"}}}
	_, _, err = infraPoolProviderIDList(bad)
	require.ErrorContains(t, err, "spec.providerIDList[1]")
	_, err = infraPoolReplicas(bad)
	require.ErrorContains(t, err, "status.replicas")
}
