package install

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func deploymentWith(generation int64, status appsv1.DeploymentStatus) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "capstan-system", Name: "cluster-api-controller-manager", Generation: generation},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)},
		Status:     status,
	}
}

func available(s corev1.ConditionStatus, reason string) []appsv1.DeploymentCondition {
	return []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: s, Reason: reason}}
}

func TestRolloutState_CompleteOnlyWhenTheLatestSpecIsUpdatedAndAvailable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      *appsv1.Deployment
		want   string
		wantOK bool
	}{
		{"unseen", deploymentWith(2, appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1,
			Conditions: available(corev1.ConditionTrue, "MinimumReplicasAvailable")}),
			"waiting for the deployment controller to see the latest spec", false},
		{"old replica left", deploymentWith(2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1,
			Conditions: available(corev1.ConditionTrue, "MinimumReplicasAvailable")}), "1/1 updated, 1/1 available", false},
		{"not available", deploymentWith(2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1,
			Conditions: available(corev1.ConditionFalse, "MinimumReplicasUnavailable")}),
			"1/1 updated, 0/1 available (Available False: MinimumReplicasUnavailable)", false},
		{"complete", deploymentWith(2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1,
			Conditions: available(corev1.ConditionTrue, "MinimumReplicasAvailable")}), "1/1 updated, 1/1 available: available", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RolloutState(tc.d)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantOK, ok)
		})
	}
}

func TestDiagnose_ADeploymentNoControllerSawPointsAtInitDev(t *testing.T) {
	got := Diagnose(deploymentWith(1, appsv1.DeploymentStatus{}), nil, nil)
	require.Contains(t, got, "Deployment capstan-system/cluster-api-controller-manager: waiting for the deployment controller to see the latest spec")
	require.Contains(t, got, "next: no deployment controller has looked at it")
	require.Contains(t, got, "'capstanctl init --dev'")
}

func TestDiagnose_NamesWaitingContainersUnscheduledPodsAndTheNextStep(t *testing.T) {
	d := deploymentWith(1, appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1,
		Conditions: available(corev1.ConditionFalse, "MinimumReplicasUnavailable")})
	pods := []corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "capstan-system", Name: "a"}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "manager", Image: "capstan/core-manager:dev", State: corev1.ContainerState{
				Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}}}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "capstan-system", Name: "b"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
				Message: "0/1 nodes are available: 1 Insufficient cpu."}}}},
	}
	got := Diagnose(d, pods, nil)
	require.Contains(t, got, "pod a: Running\n    container manager waiting: CrashLoopBackOff: back-off 5m0s restarting failed container")
	require.Contains(t, got, "next: read why it exits with 'kubectl logs -n capstan-system a -c manager --previous'")
	require.Contains(t, got, "pod b: Pending, not scheduled: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.")
	require.NotContains(t, got, "make images")

	got = Diagnose(d, nil, errors.New("forbidden"))
	require.Contains(t, got, "pods: forbidden")
}
