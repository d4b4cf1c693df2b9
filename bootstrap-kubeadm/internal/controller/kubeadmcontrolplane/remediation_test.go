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
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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

// TestRemediation_ReplacesAMarkedMachineAndRemovesItsEtcdMemberAtItsHook: a control plane Machine
// an MHC marked is taken over (OwnerRemediated says the owner deletes it) and deleted; its etcd
// member goes at its pre-terminate hook, after drain; a new Machine takes its place.
func TestRemediation_ReplacesAMarkedMachineAndRemovesItsEtcdMemberAtItsHook(t *testing.T) {
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
	require.Empty(t, f.etcd().removedNames(), "its etcd member stays until the drain is done")
	f.reachPreTerminateHook(sick.Name)
	envtest.WaitFor(t, timeout, "the hook removed from Machine "+sick.Name, func() (bool, error) {
		return !hasHook(f.machineNamed(sick.Name)), nil
	})
	require.Equal(t, []string{sick.Name}, f.etcd().removedNames())

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
	// Both marks must be seen together: with only the first one, remediating it keeps quorum.
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	})
	f.waitCondition(clusterv1.PausedCondition, metav1.ConditionTrue, "")
	markUnhealthy(t, f, ms[0])
	markUnhealthy(t, f, ms[1])
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { delete(k.Annotations, clusterv1.PausedAnnotation) })
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue,
		"would leave 2 etcd member(s), 1 of them healthy")
	f.etcd().waitPasses(t, 3)
	require.Empty(t, f.etcd().removedNames())
	for _, m := range f.machines() {
		require.False(t, deleting(m), "Machine %s", m.Name)
	}
}

// TestRemediation_NeverDeletesTheOnlyMachine: the single Machine of an initialized control plane
// is never remediated (before initialization it is: see the next test).
func TestRemediation_NeverDeletesTheOnlyMachine(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m := f.growTo(1)[0]
	f.waitCondition(controlplanev1.KubeadmControlPlaneInitializedCondition, metav1.ConditionTrue, "")
	markUnhealthy(t, f, m)
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue, "is the only control plane Machine")
	f.etcd().waitPasses(t, 2)
	require.False(t, deleting(f.machines()[0]))
}

// TestRemediation_RecreatesAFailedFirstMachineBeforeInitialization: a first Machine whose
// kubeadm init never finished is remediated like any other (upstream): deleted and created again
// as the first Machine, each replacement counted as a retry, until spec.remediation.maxRetry
// stops it with a message naming the field.
func TestRemediation_RecreatesAFailedFirstMachineBeforeInitialization(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) {
		o.kcp = func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Remediation.MaxRetry = ptr.To[int32](1) }
	})
	first := f.waitMachines(1)[0]
	second := replaceUninitialized(t, f, first, 0)
	third := replaceUninitialized(t, f, second, 1)

	markUnhealthy(t, f, third)
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue, "spec.remediation.maxRetry (1) is reached")
	ms := f.machines()
	require.Len(t, ms, 1)
	require.Equal(t, third.Name, ms[0].Name)
	require.False(t, deleting(ms[0]))
	require.False(t, kubeadmInitDone(), "no kubeadm init was simulated: the control plane never initialized")
}

// replaceUninitialized marks the only Machine of a control plane that never initialized and
// returns the first Machine created in its place, which carries the remediation with retry.
func replaceUninitialized(t *testing.T, f *fixture, m *clusterv1.Machine, retry int) *clusterv1.Machine {
	t.Helper()
	markUnhealthy(t, f, m)
	var next *clusterv1.Machine
	envtest.WaitFor(t, timeout, "a new first Machine in place of "+m.Name, func() (bool, error) {
		ms := f.machines()
		if len(ms) != 1 || ms[0].Name == m.Name {
			return false, fmt.Errorf("Machines: %s", names(ms))
		}
		next = ms[0]
		return true, nil
	})
	d, err := readRemediationData(next.Annotations, controlplanev1.RemediationForAnnotation)
	require.NoError(t, err)
	require.NotNil(t, d, "Machine %s carries no remediation-for annotation", next.Name)
	require.Equal(t, m.Name, d.Machine)
	require.Equal(t, retry, d.RetryCount)
	cfg := kubeadmConfigOf(t, next)
	require.True(t, isInitConfig(cfg), "Machine %s must run kubeadm init, not join", next.Name)
	return next
}

// replaceMarked marks m, waits for it to be deleted and for a new Machine to take its place, joins
// the new Machine's Node and returns it.
func replaceMarked(t *testing.T, f *fixture, m *clusterv1.Machine) *clusterv1.Machine {
	t.Helper()
	before := map[string]bool{}
	for _, cur := range f.machines() {
		before[cur.Name] = true
	}
	markUnhealthy(t, f, m)
	var replacement *clusterv1.Machine
	envtest.WaitFor(t, timeout, "the replacement of Machine "+m.Name, func() (bool, error) {
		ms := f.machines()
		var names []string
		for _, cur := range ms {
			names = append(names, cur.Name)
			if !before[cur.Name] {
				replacement = cur
			}
		}
		if replacement == nil || slices.Contains(names, m.Name) {
			return false, fmt.Errorf("Machines %v", names)
		}
		return true, nil
	})
	f.joinNode(replacement)
	return replacement
}

// TestRemediation_CountsRetriesOfReplacementsAndStopsAtMaxRetry: a replacement that fails within
// minHealthyPeriod is a retry of the remediation that created it; past spec.remediation.maxRetry
// remediation stops and says so.
func TestRemediation_CountsRetriesOfReplacementsAndStopsAtMaxRetry(t *testing.T) {
	f, ms := scaleDownFixture(t)
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.Remediation = controlplanev1.KubeadmControlPlaneRemediationSpec{MaxRetry: ptr.To[int32](1)}
	})

	first := replaceMarked(t, f, ms[0])
	data, err := readRemediationData(first.Annotations, controlplanev1.RemediationForAnnotation)
	require.NoError(t, err)
	require.Equal(t, ms[0].Name, data.Machine)
	require.Equal(t, 0, data.RetryCount)
	waitLastRemediation(t, f, ms[0].Name, 0)

	second := replaceMarked(t, f, first) // fails at once: retry 1 of at most 1
	data, err = readRemediationData(second.Annotations, controlplanev1.RemediationForAnnotation)
	require.NoError(t, err)
	require.Equal(t, first.Name, data.Machine)
	require.Equal(t, 1, data.RetryCount)
	waitLastRemediation(t, f, first.Name, 1)

	markUnhealthy(t, f, second) // retry 2: past maxRetry
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue,
		"spec.remediation.maxRetry (1) is reached and remediation stops")
	for _, m := range f.machines() {
		require.False(t, deleting(m), "Machine %s", m.Name)
	}
	k := f.waitKCP("no remediation in progress", func(*controlplanev1.KubeadmControlPlane) error { return nil })
	require.NotContains(t, k.Annotations, controlplanev1.RemediationInProgressAnnotation, "the replacement took the record over")
}

// waitLastRemediation waits until status.lastRemediation (upstream's field) names machine with
// retries remediations in a row before it.
func waitLastRemediation(t *testing.T, f *fixture, machine string, retries int32) {
	t.Helper()
	f.waitKCP("status.lastRemediation of Machine "+machine, func(k *controlplanev1.KubeadmControlPlane) error {
		if got := k.Status.LastRemediation; got.Machine != machine || ptr.Deref(got.RetryCount, -1) != retries || got.Time.IsZero() {
			return fmt.Errorf("status.lastRemediation is %+v", got)
		}
		return nil
	})
}

func TestRemediationRetry_RetryPeriodAndMinHealthyPeriod(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	replacement := func(remediatedAgo time.Duration, retries int) *clusterv1.Machine {
		return &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "r", Annotations: map[string]string{
			controlplanev1.RemediationForAnnotation: remediationData{Machine: "old", Timestamp: metav1.NewTime(now.Add(-remediatedAgo)), RetryCount: retries}.String(),
		}}}
	}
	kcp := &controlplanev1.KubeadmControlPlane{}
	kcp.Spec.Remediation = controlplanev1.KubeadmControlPlaneRemediationSpec{
		RetryPeriodSeconds: ptr.To[int32](600), MinHealthyPeriodSeconds: ptr.To[int32](1800)}

	retry, blocked, wait, err := remediationRetry(kcp, &clusterv1.Machine{}, now)
	require.NoError(t, err)
	require.Equal(t, 0, retry, "not a replacement: a first remediation")
	require.Empty(t, blocked)

	retry, blocked, wait, err = remediationRetry(kcp, replacement(5*time.Minute, 2), now)
	require.NoError(t, err)
	require.Equal(t, 3, retry)
	require.Contains(t, blocked, "Waiting until 2026-12-03T10:05:00Z")
	require.Equal(t, 5*time.Minute, wait)

	retry, blocked, _, _ = remediationRetry(kcp, replacement(15*time.Minute, 2), now)
	require.Equal(t, 3, retry, "after retryPeriod, within minHealthyPeriod: a retry")
	require.Empty(t, blocked)

	retry, blocked, _, _ = remediationRetry(kcp, replacement(45*time.Minute, 2), now)
	require.Equal(t, 0, retry, "healthy for longer than minHealthyPeriod: a new sequence")
	require.Empty(t, blocked)

	// A retry count nobody can read is an error, not a first remediation that restarts the count.
	garbled := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "r", Annotations: map[string]string{
		controlplanev1.RemediationForAnnotation: "not json"}}}
	_, blocked, _, err = remediationRetry(kcp, garbled, now)
	require.ErrorContains(t, err, `parsing "not json" as JSON`)
	require.Empty(t, blocked)
}

// TestRemediation_MalformedAnnotationsAreReportedNotIgnored: a remediation-in-progress on the
// KubeadmControlPlane, or a remediation-for on the marked Machine, that is not the JSON record
// stops remediation with a Remediating message naming the annotation, the object and what to do;
// nothing is deleted (watched). Fixing the annotation lets remediation go on.
func TestRemediation_MalformedAnnotationsAreReportedNotIgnored(t *testing.T) {
	f, ms := scaleDownFixture(t)
	deletions := f.watchDeletions()
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Annotations = map[string]string{controlplanev1.RemediationInProgressAnnotation: "{broken"}
	})
	f.updateMachine(ms[0].Name, func(m *clusterv1.Machine) { setAnnotation(m, controlplanev1.RemediationForAnnotation, "yesterday") })
	markUnhealthy(t, f, ms[0])
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue,
		"Remediation stopped: annotation "+controlplanev1.RemediationInProgressAnnotation+" on KubeadmControlPlane cp is malformed (parsing \"{broken\" as JSON")

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		delete(k.Annotations, controlplanev1.RemediationInProgressAnnotation)
	})
	f.waitCondition(controlplanev1.KubeadmControlPlaneRemediatingCondition, metav1.ConditionTrue,
		"Remediation stopped: annotation "+controlplanev1.RemediationForAnnotation+" on Machine "+ms[0].Name+" is malformed (parsing \"yesterday\" as JSON")
	f.etcd().waitPasses(t, 3)
	require.Empty(t, deletions.seen(), "a malformed retry count does not restart the count")

	f.updateMachine(ms[0].Name, func(m *clusterv1.Machine) { delete(m.Annotations, controlplanev1.RemediationForAnnotation) })
	envtest.WaitFor(t, timeout, "Machine "+ms[0].Name+" deleted", func() (bool, error) { return len(deletions.seen()) > 0, nil })
}
