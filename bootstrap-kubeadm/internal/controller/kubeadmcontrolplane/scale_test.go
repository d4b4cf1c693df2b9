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
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/kcprollout"
)

func TestPlan_RollsOutWithinMaxSurge(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC))
	kcp := func(replicas int32, surge int) *controlplanev1.KubeadmControlPlane {
		k := &controlplanev1.KubeadmControlPlane{Spec: controlplanev1.KubeadmControlPlaneSpec{Replicas: ptr.To(replicas), Version: "v2"}}
		k.Spec.Rollout.Strategy.RollingUpdate.MaxSurge = ptr.To(intstrFromInt(surge))
		return k
	}
	ms := func(versions ...string) []*clusterv1.Machine {
		var out []*clusterv1.Machine
		for i, v := range versions {
			out = append(out, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(i), CreationTimestamp: now}, Spec: clusterv1.MachineSpec{Version: v}})
		}
		return out
	}
	planAt := func(k *controlplanev1.KubeadmControlPlane, machines []*clusterv1.Machine, now metav1.Time) kcprollout.Action {
		return plan(k, machines, func(m *clusterv1.Machine) bool { return outdatedReason(k, m, machineParts{}, now) != "" })
	}
	require.Equal(t, kcprollout.ScaleUp, planAt(kcp(1, 1), ms("v1"), now), "surge first")
	require.Equal(t, kcprollout.ScaleDown, planAt(kcp(1, 1), ms("v1", "v2"), now), "then remove the outdated one")
	require.Equal(t, kcprollout.None, planAt(kcp(1, 1), ms("v2"), now))
	require.Equal(t, kcprollout.ScaleDown, planAt(kcp(3, 0), ms("v1", "v2", "v2"), now), "maxSurge 0 removes first")
	require.Equal(t, kcprollout.ScaleUp, planAt(kcp(3, 0), ms("v2", "v2"), now))
	require.Equal(t, kcprollout.ScaleDown, planAt(kcp(1, 1), ms("v2", "v2"), now))

	after := kcp(1, 1)
	after.Spec.Rollout.After = metav1.NewTime(now.Add(time.Hour))
	require.Equal(t, kcprollout.None, planAt(after, ms("v2"), now), "rollout.after in the future")
	after.Spec.Rollout.After = metav1.NewTime(now.Add(-time.Hour))
	old := ms("v2")
	old[0].CreationTimestamp = metav1.NewTime(now.Add(-2 * time.Hour))
	require.Equal(t, kcprollout.ScaleUp, planAt(after, old, now), "created before rollout.after")
}

// scaleDownFixture builds a ready 3-Machine control plane and returns its Machines by name.
func scaleDownFixture(t *testing.T, opts ...func(*controllerOptions)) (*fixture, []*clusterv1.Machine) {
	t.Helper()
	startController(t, opts...)
	f := newFixture(t, func(o *fixtureOptions) { o.replicas = 3 })
	ms := f.growTo(3)
	f.waitKCP("3 ready replicas", func(k *controlplanev1.KubeadmControlPlane) error {
		if ptr.Deref(k.Status.ReadyReplicas, 0) != 3 {
			return fmt.Errorf("status %+v", k.Status)
		}
		return nil
	})
	return f, ms
}

// TestScaleDown_AnotherDeletingMachineBlocks: the Machine chosen for removal is not deleted while
// another one is being deleted, and the ScalingDown condition names the one it waits for.
func TestScaleDown_AnotherDeletingMachineBlocks(t *testing.T) {
	f, ms := scaleDownFixture(t)
	ctx := context.Background()
	f.hold(ms[0])
	require.NoError(t, env.Client.Delete(ctx, ms[0]))
	f.updateMachine(ms[1].Name, func(m *clusterv1.Machine) { m.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: ""} })
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })

	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionTrue,
		"Scaling down from 3 to 1 replicas; Waiting for Machine "+ms[0].Name+" to be deleted: the control plane changes one Machine at a time")
	for _, m := range f.machines() {
		if m.Name != ms[0].Name {
			require.True(t, m.DeletionTimestamp.IsZero(), "Machine %s deleted while %s is still being deleted", m.Name, ms[0].Name)
		}
	}

	f.release(ms[0].Name)
	left := f.waitMachines(1)
	require.Equal(t, ms[2].Name, left[0].Name, "the annotated Machine went next")
	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionFalse, "")
}

// TestScaleDown_TheChosenMachineAlreadyDeletingDoesNotBlock simulates a controller that stopped in
// the middle of a scale down: the Machine it chose is already deleting (and has lost its Node).
// Choosing first and checking the others only, the next pass picks that Machine again and is not
// blocked by it; once it is gone, the scale down goes on.
func TestScaleDown_TheChosenMachineAlreadyDeletingDoesNotBlock(t *testing.T) {
	f, ms := scaleDownFixture(t)
	ctx := context.Background()
	chosen := ms[1]
	f.hold(chosen)
	f.updateMachine(chosen.Name, func(m *clusterv1.Machine) { m.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: ""} })
	require.NoError(t, env.Client.Delete(ctx, chosen))
	envtest.UpdateStatus(t, env.Client, chosen, func() { chosen.Status.NodeRef = clusterv1.MachineNodeReference{} })
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })

	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionTrue,
		"Scaling down from 3 to 1 replicas; waiting for Machine "+chosen.Name+" to be deleted")
	kcp := f.waitKCP("reconciled", func(k *controlplanev1.KubeadmControlPlane) error { return nil })
	msg := conditions.Get(kcp, clusterv1.ScalingDownCondition).Message
	require.NotContains(t, msg, "one Machine at a time", "the chosen Machine does not block its own scale down")
	require.NotContains(t, msg, "to have a Node")

	f.release(chosen.Name)
	left := f.waitMachines(1)
	require.NotEqual(t, chosen.Name, left[0].Name)
}

// TestRollout_ReplacesTheOnlyMachineNeverGoingBelowOne: with one replica and maxSurge 1, a new
// version first adds an up-to-date Machine, then, once it has a Node, deletes the old one.
func TestRollout_ReplacesTheOnlyMachineNeverGoingBelowOne(t *testing.T) {
	startController(t)
	f := newFixture(t)
	old := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.37.3" })
	var fresh *clusterv1.Machine
	envtest.WaitFor(t, timeout, "a new Machine at v1.37.3", func() (bool, error) {
		for _, m := range f.machines() {
			if m.Spec.Version == "v1.37.3" {
				fresh = m
				return true, nil
			}
		}
		return false, nil
	})
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionTrue, "Waiting for Machine "+fresh.Name+" to have a Node")
	cur := f.machines()
	require.Len(t, cur, 2)
	for _, m := range cur {
		require.True(t, m.DeletionTimestamp.IsZero(), "nothing is deleted before the new Machine has a Node")
	}

	f.joinNode(fresh)
	minSeen := 2
	envtest.WaitFor(t, timeout, "the old Machine to be gone", func() (bool, error) {
		cur := f.machines()
		minSeen = min(minSeen, len(cur))
		return len(cur) == 1 && cur[0].Name == fresh.Name, nil
	})
	require.Equal(t, 1, minSeen)
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionFalse, "")
	require.NotEqual(t, old.Name, fresh.Name)
	steps := env.WaitForEvents(t, timeout, f.kcp, ReasonRolloutStep, 2)
	related := map[string]string{}
	for _, ev := range steps {
		related[ev.Action] = ev.Related.Name
	}
	require.Equal(t, map[string]string{"ScaleUp": fresh.Name, "ScaleDown": old.Name}, related, "each step of the rollout is recorded")
	f.waitKCP("version v1.37.3", func(k *controlplanev1.KubeadmControlPlane) error {
		if k.Status.Version != "v1.37.3" || ptr.Deref(k.Status.UpToDateReplicas, 0) != 1 {
			return fmt.Errorf("status %+v", k.Status)
		}
		return nil
	})
}

func intstrFromInt(i int) intstr.IntOrString { return intstr.FromInt32(int32(i)) }
