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
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/events"
)

func TestEtcdRemovalBlocked_CountsOnlyHealthyMembersLeft(t *testing.T) {
	members := []etcd.Member{{ID: 1, Name: "a"}, {ID: 2, Name: "b"}, {ID: 3, Name: "c"}}
	e := &etcdResult{members: members, unhealthy: map[string]string{}}
	require.Empty(t, etcdRemovalBlocked(e, members[0], "Removing a", nil), "2 healthy of 2 left")

	e.unhealthy["c"] = "it does not answer"
	require.Equal(t, "Removing a would leave 2 etcd member(s), 1 of them healthy (unhealthy: c: it does not answer): below the quorum of 2; fix the unhealthy members first",
		etcdRemovalBlocked(e, members[0], "Removing a", nil))
	require.Empty(t, etcdRemovalBlocked(e, members[2], "Removing c", nil), "removing the unhealthy one itself keeps quorum")
	require.Empty(t, etcdRemovalBlocked(e, etcd.Member{}, "Deleting a Machine without a member", nil), "nothing listed goes: 2 healthy of 3 keep quorum")
	require.Contains(t, etcdRemovalBlocked(&etcdResult{members: members[:1]}, members[0], "Removing a", nil), "would leave 0 etcd member(s)", "never the last")
	notB := func(m etcd.Member) bool { return m.Name != "b" }
	delete(e.unhealthy, "c")
	require.Contains(t, etcdRemovalBlocked(e, members[0], "Removing a", notB), "(unhealthy: b: its Machine is being deleted or remediated)")
}

// TestEtcdMemberHealthy_ListedIsNotEnough: a member that stays listed but does not answer, one
// with an alarm, and one whose Pod cannot be reached each make their Machine's EtcdMemberHealthy
// false with the reason, and EtcdClusterHealthy names them; the others stay true, and each
// recovers when its member does.
func TestEtcdMemberHealthy_ListedIsNotEnough(t *testing.T) {
	f, ms := scaleDownFixture(t)
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "")
	healthy := controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition

	f.etcd().setUnreachable(ms[0].Name, errors.New("pods \"etcd-x\" not found"))
	f.etcd().setDown(ms[1].Name, errors.New("connection refused"))
	f.etcd().raiseAlarm(ms[2].Name, "NOSPACE")
	f.waitMachineCondition(ms[0].Name, healthy, metav1.ConditionFalse, "it cannot be reached through Pod kube-system/etcd-"+ms[0].Name)
	f.waitMachineCondition(ms[1].Name, healthy, metav1.ConditionFalse, "is not healthy: it does not answer through Pod kube-system/etcd-"+ms[1].Name+": connection refused")
	f.waitMachineCondition(ms[2].Name, healthy, metav1.ConditionFalse, "alarm NOSPACE is raised on it")
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionFalse,
		"Machine "+ms[1].Name+": etcd member "+ms[1].Name)

	f.etcd().setUnreachable(ms[0].Name, nil)
	f.etcd().setDown(ms[1].Name, nil)
	f.waitMachineCondition(ms[0].Name, healthy, metav1.ConditionTrue, "")
	f.waitMachineCondition(ms[1].Name, healthy, metav1.ConditionTrue, "")
	f.waitMachineCondition(ms[2].Name, healthy, metav1.ConditionFalse, "alarm NOSPACE")
}

// TestScaleDown_AnUnhealthyOtherMemberBlocks: with another Machine's member listed but not
// answering, no Machine is deleted (seen on every event of a watch) and ScalingDown names that
// member, with one ControlPlaneUnhealthy Event (upstream's reason) for the whole hold; once it
// answers, the scale down proceeds.
func TestScaleDown_AnUnhealthyOtherMemberBlocks(t *testing.T) {
	notes := &eventNotes{reason: ReasonControlPlaneUnhealthy}
	f, ms := scaleDownFixture(t, func(o *controllerOptions) { o.wrapRecorder = notes.wrap })
	// Growing the control plane can pass through a moment of its own that the preflight checks
	// call unhealthy (a member listed before its Machine's Node): only the hold counts.
	notes.reset()
	deletions := f.watchDeletions()
	f.etcd().setDown(ms[2].Name, errors.New("connection refused"))
	f.updateMachine(ms[0].Name, func(m *clusterv1.Machine) { setAnnotation(m, clusterv1.DeleteMachineAnnotation, "") })
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })
	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionTrue,
		"Waiting for the etcd members of the other Machines to be healthy (Machine "+ms[2].Name+": etcd member "+ms[2].Name)
	f.etcd().waitPasses(t, 6)
	require.Empty(t, deletions.seen(), "no Machine deleted while a member does not answer")
	recorded := notes.recorded()
	require.Len(t, recorded, 1, "one ControlPlaneUnhealthy Event for the hold, not one per reconcile: %q", recorded)
	require.Contains(t, recorded[0], "Warning: Waiting for the control plane to pass preflight checks to continue reconciliation: Waiting for the etcd members of the other Machines to be healthy (Machine "+ms[2].Name)
	unhealthy, err := env.Events(t.Context(), f.kcp, ReasonControlPlaneUnhealthy)
	require.NoError(t, err)
	require.Len(t, unhealthy, 1, "stored as an Event (repeats aggregate into its series)")

	f.etcd().setDown(ms[2].Name, nil)
	envtest.WaitFor(t, timeout, "Machine "+ms[0].Name+" deleted", func() (bool, error) {
		return len(deletions.seen()) > 0, nil
	})
	require.Equal(t, []string{ms[0].Name}, deletions.seen()[:1])
}

// eventNotes keeps "<type>: <note>" of every Event of one reason the reconciler records.
type eventNotes struct {
	reason string
	mu     sync.Mutex
	notes  []string
}

func (n *eventNotes) wrap(inner events.Recorder) events.Recorder { return notesRecorder{n, inner} }

func (n *eventNotes) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = nil
}

func (n *eventNotes) recorded() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.notes)
}

type notesRecorder struct {
	n     *eventNotes
	inner events.Recorder
}

func (r notesRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if reason == r.n.reason {
		r.n.mu.Lock()
		r.n.notes = append(r.n.notes, eventtype+": "+fmt.Sprintf(note, args...))
		r.n.mu.Unlock()
	}
	r.inner.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// TestRollout_AnUnhealthyMemberBlocks: a rollout adds no Machine while a member does not answer,
// and RollingOut names it; once it answers, the rollout starts.
func TestRollout_AnUnhealthyMemberBlocks(t *testing.T) {
	f, ms := scaleDownFixture(t)
	f.etcd().setDown(ms[1].Name, errors.New("connection refused"))
	f.waitMachineCondition(ms[1].Name, controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition, metav1.ConditionFalse, "does not answer")
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.37.3" })
	f.waitCondition(clusterv1.RollingOutCondition, metav1.ConditionTrue, "Machine "+ms[1].Name+": etcd member "+ms[1].Name)
	f.etcd().waitPasses(t, 6)
	require.Len(t, f.machines(), 3, "no Machine added")

	f.etcd().setDown(ms[1].Name, nil)
	f.waitMachines(4)
}

// TestRemediation_AnUnhealthyOtherMemberBlocks: remediating a marked Machine would leave two
// members of which one does not answer: nothing is deleted (watched) and Remediating names it.
func TestRemediation_AnUnhealthyOtherMemberBlocks(t *testing.T) {
	f, ms := scaleDownFixture(t)
	deletions := f.watchDeletions()
	f.etcd().setDown(ms[1].Name, errors.New("connection refused"))
	f.waitMachineCondition(ms[1].Name, controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition, metav1.ConditionFalse, "does not answer")
	markUnhealthy(t, f, ms[0])
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue,
		"Remediating Machine "+ms[0].Name+" would leave 2 etcd member(s), 1 of them healthy (unhealthy: "+ms[1].Name+": it does not answer")
	f.etcd().waitPasses(t, 6)
	require.Empty(t, deletions.seen())

	f.etcd().setDown(ms[1].Name, nil)
	envtest.WaitFor(t, timeout, "Machine "+ms[0].Name+" deleted", func() (bool, error) { return len(deletions.seen()) > 0, nil })
	require.Equal(t, ms[0].Name, deletions.seen()[0])
}
