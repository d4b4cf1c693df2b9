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
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// markUnhealthy plays a MachineHealthCheck: the Machine failed its check and is handed to its owner.
func markUnhealthy(t *testing.T, f *fixture, m *clusterv1.Machine) {
	t.Helper()
	cur := &clusterv1.Machine{}
	cur.Namespace, cur.Name = m.Namespace, m.Name
	envtest.UpdateStatus(t, env.Client, cur, func() {
		conditions.Set(cur, conditions.False(clusterv1.MachineHealthCheckSucceededCondition, "UnhealthyNode", "Node NotReady for 5m"))
		conditions.Set(cur, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
			clusterv1.MachineOwnerRemediatedWaitingForRemediationReason, "Waiting for remediation"))
	})
}

// TestRemediation_ReplacesAMarkedMachineAfterRemovingItsEtcdMember: a control plane Machine an MHC
// marked is taken over (OwnerRemediated says the owner deletes it), its etcd member removed, the
// Machine deleted, and a new Machine takes its place.
func TestRemediation_ReplacesAMarkedMachineAfterRemovingItsEtcdMember(t *testing.T) {
	f, ms := scaleDownFixture(t)
	sick := ms[1]
	f.hold(sick) // keep it visible while deleting, as the core's Machine controller would
	markUnhealthy(t, f, sick)

	envtest.WaitFor(t, timeout, "Machine "+sick.Name+" to be deleted for remediation", func() (bool, error) {
		for _, m := range f.machines() {
			if m.Name == sick.Name {
				c := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
				if deleting(m) && c != nil && c.Reason == machineOwnerRemediatedMachineDeletingReason {
					return true, nil
				}
				return false, fmt.Errorf("deleting=%v OwnerRemediated=%+v", deleting(m), c)
			}
		}
		return false, fmt.Errorf("Machine %s is gone without being seen deleting", sick.Name)
	})
	require.Equal(t, []string{sick.Name}, f.etcd().removedNames(), "its etcd member goes first")

	f.release(sick.Name)
	envtest.WaitFor(t, timeout, "a replacement Machine", func() (bool, error) {
		ms := f.machines()
		names := make([]string, 0, len(ms))
		for _, m := range ms {
			names = append(names, m.Name)
		}
		if len(ms) != 3 || slices.Contains(names, sick.Name) {
			return false, fmt.Errorf("Machines %v (remediated: %s)", names, sick.Name)
		}
		return true, nil
	})
	for _, m := range f.machines() {
		if m.Status.NodeRef.Name == "" {
			f.joinNode(m)
		}
	}
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionFalse, "")
}

// TestRemediation_NeverBreaksEtcdQuorum: with two of three Machines marked,
// remediating one would leave two members of which one is healthy, below quorum: nothing is
// deleted and Remediating says why.
func TestRemediation_NeverBreaksEtcdQuorum(t *testing.T) {
	f, ms := scaleDownFixture(t)
	markUnhealthy(t, f, ms[0])
	markUnhealthy(t, f, ms[1])
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue,
		"would leave 2 etcd member(s), 1 of them healthy")
	f.etcd().waitPasses(t, 3)
	require.Empty(t, f.etcd().removedNames())
	for _, m := range f.machines() {
		require.False(t, deleting(m), "Machine %s", m.Name)
	}
}

// TestRemediation_NeverDeletesTheOnlyMachine: a single control plane Machine is never remediated.
func TestRemediation_NeverDeletesTheOnlyMachine(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m := f.growTo(1)[0]
	markUnhealthy(t, f, m)
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue, "is the only control plane Machine")
	f.etcd().waitPasses(t, 2)
	require.False(t, deleting(f.machines()[0]))
}
