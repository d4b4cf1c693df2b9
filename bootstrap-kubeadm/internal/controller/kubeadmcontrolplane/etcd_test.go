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
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/etcd"
)

func TestPlanEtcdMembers(t *testing.T) {
	machine := func(name, node string, opts ...string) *clusterv1.Machine {
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: name}}
		m.Status.NodeRef.Name = node
		if slices.Contains(opts, "deleting") {
			m.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return m
	}
	members := func(names ...string) []etcd.Member {
		var out []etcd.Member
		for i, n := range names {
			out = append(out, etcd.Member{ID: uint64(i + 1), Name: n})
		}
		return out
	}
	three := []*clusterv1.Machine{machine("m1", "n1"), machine("m2", "n2"), machine("m3", "n3")}
	for _, tc := range []struct {
		name        string
		machines    []*clusterv1.Machine
		members     []etcd.Member
		wantWait    []string
		wantRemove  string // member name; "" for none
		wantBlocked string
		wantMissing []string
	}{
		{name: "every member is a Machine's Node", machines: three, members: members("n1", "n2", "n3")},
		{name: "a member without a Machine is removed",
			machines: three, members: members("n1", "n2", "n3", "old"), wantRemove: "old"},
		{name: "expected names are the nodeRefs, not the Machine names",
			machines: []*clusterv1.Machine{machine("m1", "n1"), machine("m2", "n2")}, members: members("m1", "n1", "n2"), wantRemove: "m1"},
		{name: "one per pass, the first by name",
			machines: three, members: members("n1", "n2", "n3", "zz", "aa"), wantRemove: "aa"},
		{name: "a Machine without a nodeRef: wait, remove nothing",
			machines: []*clusterv1.Machine{machine("m1", "n1"), machine("m2", "n2"), machine("m3", "")}, members: members("n1", "n2", "n3"),
			wantWait: []string{"m3"}, wantBlocked: "waiting for Machine m3 to have a nodeRef"},
		{name: "a deleting Machine without a nodeRef is not waited for",
			machines: []*clusterv1.Machine{machine("m1", "n1"), machine("m2", "n2"), machine("m3", "", "deleting")}, members: members("n1", "n2", "n3"),
			wantRemove: "n3"},
		{name: "never the last member",
			machines: []*clusterv1.Machine{machine("m1", "n1")}, members: members("old"),
			wantBlocked: "it is the last member", wantMissing: []string{"m1"}},
		{name: "not when the members of Machines lose quorum",
			machines: []*clusterv1.Machine{machine("m1", "n1")}, members: members("n1", "x", "y"),
			wantBlocked: "only 1 of 3 members belong to a Machine, fewer than the 2"},
		{name: "with quorum kept",
			machines: []*clusterv1.Machine{machine("m1", "n1"), machine("m2", "n2")}, members: members("n1", "n2", "x", "y"), wantRemove: "x"},
		{name: "an unnamed member (joining) is left alone",
			machines: three, members: members("n1", "n2", "n3", "")},
		{name: "a Machine whose Node has no member is reported",
			machines: three, members: members("n1", "n3"), wantMissing: []string{"m2"}},
		{name: "a deleting Machine's removed member is not missing",
			machines: []*clusterv1.Machine{machine("m1", "n1"), machine("m2", "n2", "deleting")}, members: members("n1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planEtcdMembers(tc.machines, tc.members)
			var wait, missing []string
			for _, m := range p.wait {
				wait = append(wait, m.Name)
			}
			for _, m := range p.missing {
				missing = append(missing, m.Name)
			}
			require.Equal(t, tc.wantWait, wait)
			require.Equal(t, tc.wantMissing, missing)
			if tc.wantRemove == "" {
				require.Nil(t, p.remove, "removes %+v", p.remove)
			} else {
				require.NotNil(t, p.remove)
				require.Equal(t, tc.wantRemove, p.remove.Name)
			}
			if tc.wantBlocked == "" {
				require.Empty(t, p.blocked)
			} else {
				require.Contains(t, p.blocked, tc.wantBlocked)
			}
		})
	}
}

// TestEtcdMembers_UnexpectedMembersRemovedOnePerPassAfterEveryMachineHasANode: members are
// reconciled against the Machines' nodeRefs (never Node labels). While a Machine lacks its nodeRef
// nothing is removed and EtcdClusterHealthy names it; then the members no Machine accounts for go,
// one per pass, and the condition turns true.
func TestEtcdMembers_UnexpectedMembersRemovedOnePerPassAfterEveryMachineHasANode(t *testing.T) {
	f, ms := scaleDownFixture(t)
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "")

	// A Machine loses its nodeRef (as while its Node re-registers) and two stale members appear.
	var saved clusterv1.MachineNodeReference
	cur := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: ms[2].Name}}
	envtest.UpdateStatus(t, env.Client, cur, func() { saved, cur.Status.NodeRef = cur.Status.NodeRef, clusterv1.MachineNodeReference{} })
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionUnknown,
		"Waiting for Machine "+ms[2].Name+" to have a nodeRef")
	f.etcd().add("stale-b")
	f.etcd().add("stale-a")
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionUnknown,
		"stale-a (105), stale-b (104) are not accounted for yet")
	f.etcd().waitPasses(t, 3)
	require.Empty(t, f.etcd().removedNames(), "nothing is removed while a Machine lacks its nodeRef")

	envtest.UpdateStatus(t, env.Client, cur, func() { cur.Status.NodeRef = saved })
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "")
	require.Equal(t, []string{"stale-a", "stale-b"}, f.etcd().removedNames(), "one per pass, in name order")
	got := f.etcd().names()
	sort.Strings(got)
	want := []string{ms[0].Name, ms[1].Name, ms[2].Name}
	require.Equal(t, want, got)

	for _, m := range f.machines() {
		require.True(t, conditions.IsTrue(m, controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition), "Machine %s", m.Name)
	}
}

// TestEtcdMembers_TheLastMemberIsNeverRemoved: with one Machine whose Node has no member and one
// member nobody accounts for, the member stays and the condition says why.
func TestEtcdMembers_TheLastMemberIsNeverRemoved(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "")
	f.etcd().mu.Lock()
	f.etcd().members = []etcd.Member{{ID: 0x999, Name: "someone-else"}} // the Machine's member replaced by a stranger
	f.etcd().mu.Unlock()
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionFalse,
		"etcd members someone-else (999) belong to no control plane Machine's Node; not removed: it is the last member")
	f.etcd().waitPasses(t, 3)
	require.Empty(t, f.etcd().removedNames())
	f.waitMachineCondition(m.Name, controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition, metav1.ConditionFalse,
		"etcd has no member named "+m.Name)
}

// waitMachineCondition waits until the Machine's condition has status and its message contains want.
func (f *fixture) waitMachineCondition(name, conditionType string, status metav1.ConditionStatus, want string) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("Machine %s %s %s %q", name, conditionType, status, want), func() (bool, error) {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return false, err
		}
		c := conditions.Get(m, conditionType)
		if c == nil || c.Status != status || !strings.Contains(c.Message, want) {
			return false, fmt.Errorf("%s is %+v", conditionType, c)
		}
		return true, nil
	})
}
