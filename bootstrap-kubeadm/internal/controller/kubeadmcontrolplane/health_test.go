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

package kubeadmcontrolplane

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// createStaticPod creates kube-system/<name> in the workload cluster (the envtest API server),
// running and ready, and deletes it when the test ends.
func createStaticPod(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10.2"}}},
	}
	require.NoError(t, env.Client.Create(ctx, pod))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, pod) })
	envtest.UpdateStatus(t, env.Client, pod, func() {
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	})
}

// TestHealth_StaticPodsGiveMachineConditionsAndAMissingOneIsNamed: the four static Pods of a
// Machine's Node give its *PodHealthy conditions (written under this controller's field manager,
// next to the core's own conditions); a missing Pod makes its condition and
// ControlPlaneComponentsHealthy False, naming it, until it appears.
func TestHealth_StaticPodsGiveMachineConditionsAndAMissingOneIsNamed(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m := f.growTo(1)[0]
	node := m.Name
	for _, prefix := range []string{"kube-apiserver-", "kube-controller-manager-", "etcd-"} {
		createStaticPod(t, prefix+node)
	}

	missing := "Pod kube-system/kube-scheduler-" + node + " does not exist"
	f.waitCondition(controlplanev1.KubeadmControlPlaneControlPlaneComponentsHealthyCondition, metav1.ConditionFalse,
		"Machine "+node+": "+missing)
	f.waitMachineCondition(node, controlplanev1.KubeadmControlPlaneMachineSchedulerPodHealthyCondition, metav1.ConditionFalse, missing)
	for _, ct := range []string{
		controlplanev1.KubeadmControlPlaneMachineAPIServerPodHealthyCondition,
		controlplanev1.KubeadmControlPlaneMachineControllerManagerPodHealthyCondition,
		controlplanev1.KubeadmControlPlaneMachineEtcdPodHealthyCondition,
		controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition,
	} {
		f.waitMachineCondition(node, ct, metav1.ConditionTrue, "")
	}
	cur := &clusterv1.Machine{}
	require.NoError(t, env.Client.Get(context.Background(), keyOfMachine(m), cur))
	require.True(t, conditions.IsTrue(cur, clusterv1.MachineReadyCondition), "the core's condition is kept")
	owners := map[string]bool{}
	for _, mf := range cur.ManagedFields {
		if mf.Subresource == "status" {
			owners[mf.Manager] = true
		}
	}
	require.True(t, owners[MachineConditionsFieldManager], "applied under its own field manager: %v", owners)

	createStaticPod(t, "kube-scheduler-"+node)
	f.waitMachineCondition(node, controlplanev1.KubeadmControlPlaneMachineSchedulerPodHealthyCondition, metav1.ConditionTrue, "")
	f.waitCondition(controlplanev1.KubeadmControlPlaneControlPlaneComponentsHealthyCondition, metav1.ConditionTrue, "")
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "")
}

func TestPodCondition(t *testing.T) {
	key := keyOfPod("kube-apiserver-n1")
	running := func(ready corev1.ConditionStatus) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}}
	}
	crash := running(corev1.ConditionFalse)
	crash.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "kube-apiserver", State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s"}}}}
	for _, tc := range []struct {
		name       string
		pod        *corev1.Pod
		wantStatus metav1.ConditionStatus
		wantReason string
	}{
		{"running and ready", running(corev1.ConditionTrue), metav1.ConditionTrue, controlplanev1.KubeadmControlPlaneMachinePodRunningReason},
		{"running, not ready", running(corev1.ConditionFalse), metav1.ConditionFalse, controlplanev1.KubeadmControlPlaneMachinePodProvisioningReason},
		{"crash looping", crash, metav1.ConditionFalse, controlplanev1.KubeadmControlPlaneMachinePodFailedReason},
		{"pending", &corev1.Pod{}, metav1.ConditionFalse, controlplanev1.KubeadmControlPlaneMachinePodProvisioningReason},
		{"failed", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, metav1.ConditionFalse, controlplanev1.KubeadmControlPlaneMachinePodFailedReason},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := podCondition("APIServerPodHealthy", key, tc.pod)
			require.Equal(t, tc.wantStatus, c.Status, c.Message)
			require.Equal(t, tc.wantReason, c.Reason)
			if c.Status != metav1.ConditionTrue {
				require.Contains(t, c.Message, "kube-system/kube-apiserver-n1")
			}
		})
	}
}
