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
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/etcd"
)

// reachPreTerminateHook plays the core's Machine controller once it has drained a deleting
// Machine and waits on its pre-terminate hooks.
func (f *fixture) reachPreTerminateHook(name string) {
	f.t.Helper()
	cur := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name}}
	envtest.UpdateStatus(f.t, env.Client, cur, func() {
		conditions.Set(cur, conditions.True(clusterv1.MachineDeletingCondition, clusterv1.MachineDeletingWaitingForPreTerminateHookReason,
			"Waiting for pre-terminate hooks to succeed"))
	})
}

// machineNamed reads the Machine name; nil once it is gone.
func (f *fixture) machineNamed(name string) *clusterv1.Machine {
	for _, m := range f.machines() {
		if m.Name == name {
			return m
		}
	}
	return nil
}

func hasHook(m *clusterv1.Machine) bool {
	_, ok := m.Annotations[controlplanev1.PreTerminateHookCleanupAnnotation]
	return ok
}

// deletionWatch records, from a watch, every Machine of the namespace seen deleting: a "never
// deleted" property is checked on every event, not by polling.
type deletionWatch struct {
	mu      sync.Mutex
	deleted []string
}

func (f *fixture) watchDeletions() *deletionWatch {
	f.t.Helper()
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Client.Scheme()})
	require.NoError(f.t, err)
	w, err := wc.Watch(context.Background(), &clusterv1.MachineList{}, client.InNamespace(f.ns))
	require.NoError(f.t, err)
	f.t.Cleanup(w.Stop)
	d := &deletionWatch{}
	go func() {
		for ev := range w.ResultChan() {
			m, ok := ev.Object.(*clusterv1.Machine)
			if !ok || (ev.Type != watch.Deleted && m.DeletionTimestamp.IsZero()) {
				continue
			}
			d.mu.Lock()
			if !slices.Contains(d.deleted, m.Name) {
				d.deleted = append(d.deleted, m.Name)
			}
			d.mu.Unlock()
		}
	}()
	return d
}

func (d *deletionWatch) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.deleted...)
}

// TestScaleDown_EtcdMemberRemovedOnlyAtThePreTerminateHookAfterDrain: every Machine carries the
// kcp-cleanup pre-terminate hook (a Machine that lost it gets it back). Scale down deletes the
// chosen Machine with its member still there; the member goes only once the core reports the
// Machine waiting for its pre-terminate hook (after drain), after its leadership moved to another
// member, and then the hook is removed.
func TestScaleDown_EtcdMemberRemovedOnlyAtThePreTerminateHookAfterDrain(t *testing.T) {
	f, ms := scaleDownFixture(t)
	for _, m := range ms {
		require.True(t, hasHook(m), "Machine %s is created with the hook", m.Name)
		f.hold(m)
	}
	f.updateMachine(ms[2].Name, func(m *clusterv1.Machine) { delete(m.Annotations, controlplanev1.PreTerminateHookCleanupAnnotation) })
	envtest.WaitFor(t, timeout, "the hook back on Machine "+ms[2].Name, func() (bool, error) {
		return hasHook(f.machineNamed(ms[2].Name)), nil
	})

	chosen := ms[1]
	f.etcd().setLeader(chosen.Name)
	// At every removal, the Machine must already be waiting for its pre-terminate hook, and its
	// member must no longer lead.
	var atRemoval []string
	f.etcd().setAfterRemove(func(ctx context.Context, mem etcd.Member) error {
		m := f.machineNamed(mem.Name)
		c := conditions.Get(m, clusterv1.MachineDeletingCondition)
		if m == nil || !deleting(m) || c == nil || c.Reason != clusterv1.MachineDeletingWaitingForPreTerminateHookReason {
			atRemoval = append(atRemoval, fmt.Sprintf("member %s removed while its Machine is %+v", mem.Name, m))
		}
		return nil
	})
	f.updateMachine(chosen.Name, func(m *clusterv1.Machine) { setAnnotation(m, clusterv1.DeleteMachineAnnotation, "") })
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })

	envtest.WaitFor(t, timeout, "Machine "+chosen.Name+" deleting", func() (bool, error) { return deleting(f.machineNamed(chosen.Name)), nil })
	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionTrue, "waiting for the core's Machine controller to drain it")
	f.etcd().waitPasses(t, 3)
	require.Empty(t, f.etcd().removedNames(), "no member is removed before the drain")
	require.True(t, hasHook(f.machineNamed(chosen.Name)))

	f.reachPreTerminateHook(chosen.Name)
	envtest.WaitFor(t, timeout, "the hook removed from Machine "+chosen.Name, func() (bool, error) {
		return !hasHook(f.machineNamed(chosen.Name)), nil
	})
	require.Equal(t, []string{chosen.Name}, f.etcd().removedNames())
	require.Empty(t, atRemoval)
	down := env.WaitForEvents(t, timeout, f.kcp, ReasonSuccessfulScaleDown, 1)
	require.Equal(t, chosen.Name, down[0].Related.Name)
	removed := env.WaitForEvents(t, timeout, f.kcp, ReasonEtcdMemberRemoved, 1)
	require.Equal(t, chosen.Name, removed[0].Related.Name, "the Event names the deleting Machine")
	require.Contains(t, removed[0].Note, "Removed etcd member "+chosen.Name)
	f.etcd().mu.Lock()
	require.Empty(t, f.etcd().removedLeaders, "the leadership moved before the removal")
	require.NotEqual(t, uint64(0), f.etcd().leader, "a member was handed the leadership")
	f.etcd().mu.Unlock()
	f.release(chosen.Name)
	envtest.WaitFor(t, timeout, "Machine "+chosen.Name+" gone", func() (bool, error) { return f.machineNamed(chosen.Name) == nil, nil })
}

// TestPreTerminateHook_ACrashAfterTheMemberRemovalNeitherBlocksNorRemovesTwice: the manager stops
// right after the deleting Machine's member was removed, before its hook goes; meanwhile the
// choice for the next scale down changes (another Machine gets the delete-machine annotation). The
// next manager takes the member already gone as done, removes the hook, is not blocked by the
// member it removed, and goes on with the newly chosen Machine.
func TestPreTerminateHook_ACrashAfterTheMemberRemovalNeitherBlocksNorRemovesTwice(t *testing.T) {
	stopGrowing := startController(t)
	f := newFixture(t, func(o *fixtureOptions) { o.replicas = 3 })
	ms := f.growTo(3)
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "")
	for _, m := range ms {
		f.hold(m)
	}
	first, next := ms[0], ms[2]
	f.updateMachine(first.Name, func(m *clusterv1.Machine) { setAnnotation(m, clusterv1.DeleteMachineAnnotation, "") })
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })
	envtest.WaitFor(t, timeout, "Machine "+first.Name+" deleting", func() (bool, error) { return deleting(f.machineNamed(first.Name)), nil })

	// The "crash": the removal holds the reconcile until the manager's context ends.
	removed := make(chan string, 1)
	f.etcd().setAfterRemove(func(ctx context.Context, m etcd.Member) error {
		removed <- m.Name
		<-ctx.Done()
		return ctx.Err()
	})
	f.reachPreTerminateHook(first.Name)
	select {
	case name := <-removed:
		require.Equal(t, first.Name, name)
	case <-time.After(timeout):
		t.Fatal("no etcd member was removed")
	}
	stopGrowing()
	f.etcd().setAfterRemove(nil)
	require.True(t, hasHook(f.machineNamed(first.Name)), "the crash left the hook")
	f.updateMachine(next.Name, func(m *clusterv1.Machine) { setAnnotation(m, clusterv1.DeleteMachineAnnotation, "") })

	startController(t)
	envtest.WaitFor(t, timeout, "the hook removed from Machine "+first.Name, func() (bool, error) {
		return !hasHook(f.machineNamed(first.Name)), nil
	})
	require.Equal(t, []string{first.Name}, f.etcd().removedNames(), "removed once")
	f.release(first.Name) // the core deletes the infrastructure, then the Machine goes

	envtest.WaitFor(t, timeout, "Machine "+next.Name+" deleting", func() (bool, error) { return deleting(f.machineNamed(next.Name)), nil })
	f.reachPreTerminateHook(next.Name)
	envtest.WaitFor(t, timeout, "the member of Machine "+next.Name+" removed", func() (bool, error) {
		if got := f.etcd().removedNames(); !slices.Equal(got, []string{first.Name, next.Name}) {
			return false, fmt.Errorf("removed %v", got)
		}
		return true, nil
	})
	f.release(next.Name)
	left := f.waitMachines(1)
	require.Equal(t, ms[1].Name, left[0].Name)
	require.Equal(t, []string{ms[1].Name}, f.etcd().names())
	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionFalse, "")
}

// TestPreTerminateHook_WaitsWhileRemovingTheMemberWouldBreakQuorum: a deleting Machine at its
// hook keeps its member while the other members would not hold quorum (one of the two left does
// not answer), says so naming that member, and goes on once it answers again.
func TestPreTerminateHook_WaitsWhileRemovingTheMemberWouldBreakQuorum(t *testing.T) {
	f, ms := scaleDownFixture(t)
	sick, gone := ms[2], ms[0]
	f.hold(gone)
	f.updateMachine(gone.Name, func(m *clusterv1.Machine) { setAnnotation(m, clusterv1.DeleteMachineAnnotation, "") })
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })
	envtest.WaitFor(t, timeout, "Machine "+gone.Name+" deleting", func() (bool, error) { return deleting(f.machineNamed(gone.Name)), nil })
	f.etcd().setDown(sick.Name, errors.New("connection refused"))
	f.reachPreTerminateHook(gone.Name)
	f.waitCondition(clusterv1.ScalingDownCondition, metav1.ConditionTrue,
		"Removing the etcd member of deleting Machine "+gone.Name+" would leave 2 etcd member(s), 1 of them healthy (unhealthy: "+sick.Name+": it does not answer")
	f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionFalse,
		"Machine "+sick.Name+": etcd member "+sick.Name)
	f.etcd().waitPasses(t, 6)
	require.Empty(t, f.etcd().removedNames())
	require.True(t, hasHook(f.machineNamed(gone.Name)))

	f.etcd().setDown(sick.Name, nil)
	envtest.WaitFor(t, timeout, "the hook removed from Machine "+gone.Name, func() (bool, error) {
		return !hasHook(f.machineNamed(gone.Name)), nil
	})
	require.Equal(t, []string{gone.Name}, f.etcd().removedNames())
}

// TestDelete_RemovesTheHooksWithoutTouchingEtcd: deleting the KubeadmControlPlane lets its
// Machines go without waiting on their hooks, and removes no member: the whole etcd goes.
func TestDelete_RemovesTheHooksWithoutTouchingEtcd(t *testing.T) {
	f, ms := scaleDownFixture(t)
	for _, m := range ms {
		f.hold(m)
	}
	require.NoError(t, env.Client.Delete(context.Background(), f.kcp))
	envtest.WaitFor(t, timeout, "every Machine deleting without its hook", func() (bool, error) {
		for _, m := range f.machines() {
			if !deleting(m) || hasHook(m) {
				return false, fmt.Errorf("Machine %s deleting=%v hook=%v", m.Name, deleting(m), hasHook(m))
			}
		}
		return true, nil
	})
	require.Empty(t, f.etcd().removedNames())
}

func setAnnotation(m *clusterv1.Machine, key, value string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[key] = value
}
