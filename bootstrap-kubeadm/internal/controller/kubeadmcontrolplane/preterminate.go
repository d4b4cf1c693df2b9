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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/etcd"
)

// reconcilePreTerminateHook removes the etcd member of a deleting Machine at the moment upstream
// HEAD does: every Machine carries the pre-terminate hook PreTerminateHookCleanupAnnotation, so
// the core's Machine controller drains the Node, then waits (Deleting reason
// WaitingForPreTerminateHook) before deleting the infrastructure. Here the member is removed
// through another member (after moving the leadership away from it), once the removal keeps etcd
// quorum among healthy members, and then the annotation goes. One Machine at a time, the one deleted first. Each step is safe to repeat: a
// member already gone is what a controller stopped after the removal left, so the annotation
// just goes. It never stops the later steps: the preflight checks wait for deleting Machines.
func (r *Reconciler) reconcilePreTerminateHook(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if err := r.addPreTerminateHooks(ctx, s); err != nil {
		return ctrl.Result{}, false, err
	}
	m := nextPreTerminateMachine(s.machines)
	if m == nil {
		return ctrl.Result{}, false, nil
	}
	if why := notWaitingForOurHook(m); why != "" {
		s.preTerminateWait = why
		return ctrl.Result{}, false, nil // the core's update of the Machine's conditions brings us back
	}
	if hasNode(m) && len(s.machines) > 1 && s.etcdManaged() {
		why, err := r.removeDeletingMachineEtcdMember(ctx, s, m)
		if err != nil {
			s.preTerminateWait = fmt.Sprintf("Removing the etcd member of Machine %s failed: %v", m.Name, err)
			return ctrl.Result{}, false, err
		}
		if why != "" {
			s.preTerminateWait = why
			return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil // nothing watches etcd health
		}
	}
	return ctrl.Result{}, false, r.removePreTerminateHook(ctx, m)
}

// addPreTerminateHooks puts the hook on every Machine that is not being deleted and lacks it (a
// Machine created before the hook existed, or whose annotation someone removed).
func (r *Reconciler) addPreTerminateHooks(ctx context.Context, s *scope) error {
	for _, m := range s.machines {
		if deleting(m) {
			continue
		}
		if _, ok := m.Annotations[controlplanev1.PreTerminateHookCleanupAnnotation]; ok {
			continue
		}
		orig := m.DeepCopy()
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[controlplanev1.PreTerminateHookCleanupAnnotation] = ""
		ctrl.LoggerFrom(ctx).Info("Adding the pre-terminate hook to Machine", "Machine", klog.KObj(m))
		if err := r.Client.Patch(ctx, m, client.MergeFrom(orig)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("adding the pre-terminate hook to Machine %s: %w", m.Name, err)
		}
	}
	return nil
}

// nextPreTerminateMachine is the deleting Machine, still carrying the hook, deleted first (by
// name on a tie), so that passes agree on which one is handled.
func nextPreTerminateMachine(machines []*clusterv1.Machine) *clusterv1.Machine {
	var next *clusterv1.Machine
	for _, m := range machines {
		if _, ok := m.Annotations[controlplanev1.PreTerminateHookCleanupAnnotation]; !ok || !deleting(m) {
			continue
		}
		if next == nil || m.DeletionTimestamp.Before(next.DeletionTimestamp) {
			next = m
		}
	}
	return next
}

// notWaitingForOurHook says why the deleting Machine's member is not removed yet: the core has
// not drained it (its Deleting condition is not at WaitingForPreTerminateHook), or another
// pre-terminate hook is still there and ours runs last (as upstream's does, so the kubelet and
// etcd still work for the others).
func notWaitingForOurHook(m *clusterv1.Machine) string {
	c := conditions.Get(m, clusterv1.MachineDeletingCondition)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != clusterv1.MachineDeletingWaitingForPreTerminateHookReason {
		return fmt.Sprintf("Machine %s: waiting for the core's Machine controller to drain it and reach its pre-terminate hooks before its etcd member is removed", m.Name)
	}
	var others []string
	for k := range m.Annotations {
		if strings.HasPrefix(k, clusterv1.PreTerminateDeleteHookAnnotationPrefix) && k != controlplanev1.PreTerminateHookCleanupAnnotation {
			others = append(others, k)
		}
	}
	if len(others) > 0 {
		return fmt.Sprintf("Machine %s: waiting for its other pre-terminate hooks (%s) to go before its etcd member is removed", m.Name, strings.Join(others, ", "))
	}
	return ""
}

// removeDeletingMachineEtcdMember removes the member of the deleting Machine m through another
// member. It returns why it must wait: etcd not read, or quorum not kept among the healthy
// members left. A member already gone, or the last one (the etcd cluster ends with this Machine),
// leaves nothing to remove.
func (r *Reconciler) removeDeletingMachineEtcdMember(ctx context.Context, s *scope, m *clusterv1.Machine) (string, error) {
	node := m.Status.NodeRef.Name
	switch {
	case !initialized(s):
		return "", nil // no control plane yet: no member to lose
	case s.workloadWait != "":
		return fmt.Sprintf("Machine %s: %s before removing its etcd member", m.Name, s.workloadWait), nil
	case s.etcd == nil || s.etcd.err != nil:
		return fmt.Sprintf("Machine %s: the etcd members could not be read, so its member is not removed yet: %v", m.Name, etcdErr(s.etcd)), nil
	}
	mem, ok := s.etcd.memberNamed(node)
	if !ok || len(s.etcd.members) == 1 {
		return "", nil
	}
	if why := etcdRemovalBlocked(s.etcd, mem, fmt.Sprintf("Removing the etcd member of deleting Machine %s", m.Name), nil); why != "" {
		return why, nil
	}
	c, err := r.etcdClient(ctx, s, node)
	if err != nil {
		return fmt.Sprintf("Machine %s: cannot reach etcd through another member to remove its member: %v", m.Name, err), nil
	}
	if err := r.forwardEtcdLeadership(ctx, s, c, mem); err != nil {
		return "", fmt.Errorf("Machine %s: %w", m.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Removing the etcd member of a deleting Machine", "Machine", klog.KObj(m), "member", node, "memberID", fmt.Sprintf("%x", mem.ID))
	if err := c.RemoveMember(ctx, mem.ID); err != nil && !errors.Is(err, etcd.ErrMemberNotFound) {
		return "", fmt.Errorf("removing the etcd member %s of Machine %s: %w", node, m.Name, err)
	}
	r.recordEtcdMemberRemoved(s, m, node)
	return "", nil
}

// forwardEtcdLeadership hands the leadership from mem, when it leads, to the first healthy member
// (by name) that stays, through a connection to mem itself (only the leader can move it), as
// upstream does before removing a member: removing the leader forces an election, during which
// etcd answers no writes. via is a connection to another member, which tells who leads.
func (r *Reconciler) forwardEtcdLeadership(ctx context.Context, s *scope, via etcd.Client, mem etcd.Member) error {
	st, err := via.Status(ctx)
	if err != nil {
		return fmt.Errorf("reading the etcd leader: %w", err)
	}
	if st.Leader != mem.ID {
		return nil
	}
	for _, to := range s.etcd.members {
		if _, sick := s.etcd.unhealthy[memberKey(to)]; sick || to.ID == mem.ID {
			continue
		}
		leader, err := r.EtcdClientFor(ctx, s.cluster, mem.Name)
		if err != nil {
			return fmt.Errorf("connecting to the etcd leader %s to move its leadership: %w", mem.Name, err)
		}
		defer leader.Close()
		ctrl.LoggerFrom(ctx).Info("Moving the etcd leadership before removing the leader", "member", mem.Name, "to", to.Name)
		return leader.MoveLeader(ctx, to.ID)
	}
	return nil // no healthy member to take it: the removal's quorum check already refused
}

func etcdErr(e *etcdResult) error {
	if e == nil {
		return errors.New("not looked at")
	}
	return e.err
}

// removePreTerminateHook lets the core's Machine controller go on deleting m.
func (r *Reconciler) removePreTerminateHook(ctx context.Context, m *clusterv1.Machine) error {
	if _, ok := m.Annotations[controlplanev1.PreTerminateHookCleanupAnnotation]; !ok {
		return nil
	}
	orig := m.DeepCopy()
	delete(m.Annotations, controlplanev1.PreTerminateHookCleanupAnnotation)
	ctrl.LoggerFrom(ctx).Info("Removing the pre-terminate hook from Machine", "Machine", klog.KObj(m))
	if err := r.Client.Patch(ctx, m, client.MergeFrom(orig)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("removing the pre-terminate hook from Machine %s: %w", m.Name, err)
	}
	return nil
}
