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
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// RemediationFieldManager owns the OwnerRemediated condition the KubeadmControlPlane writes on a
// Machine it remediates: from then on the owner, not the MachineHealthCheck, speaks for it.
const RemediationFieldManager = "capstan-kubeadmcontrolplane-remediation"

// machineOwnerRemediatedMachineDeletingReason is OwnerRemediated's reason once the owner deletes
// the Machine to replace it (upstream's wording).
const machineOwnerRemediatedMachineDeletingReason = "MachineDeleting"

// needsRemediation is a Machine a MachineHealthCheck found unhealthy and handed to its owner:
// HealthCheckSucceeded=False and OwnerRemediated=False, not already being deleted.
func needsRemediation(m *clusterv1.Machine) bool {
	if deleting(m) {
		return false
	}
	hc := conditions.Get(m, clusterv1.MachineHealthCheckSucceededCondition)
	or := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
	return hc != nil && hc.Status == metav1.ConditionFalse && or != nil && or.Status == metav1.ConditionFalse
}

// remediationCandidate is the Machine to remediate first: the oldest of those marked, so a
// Machine that keeps failing does not starve the others.
func remediationCandidate(machines []*clusterv1.Machine) *clusterv1.Machine {
	var marked []*clusterv1.Machine
	for _, m := range machines {
		if needsRemediation(m) {
			marked = append(marked, m)
		}
	}
	if len(marked) == 0 {
		return nil
	}
	return oldest(marked)
}

// remediationBlocked says why the candidate may not be deleted now; empty when it may. A
// control plane is remediated one Machine at a time, never its only Machine, and only when the
// etcd members of the other healthy Machines keep the quorum of the cluster without the
// candidate's member: deleting a Machine whose loss breaks quorum would take the control plane
// down, which is worse than an unhealthy Machine.
func remediationBlocked(s *scope, candidate *clusterv1.Machine) string {
	var deletingOthers []*clusterv1.Machine
	for _, m := range s.machines {
		if m != candidate && deleting(m) {
			deletingOthers = append(deletingOthers, m)
		}
	}
	switch {
	case len(deletingOthers) > 0:
		return fmt.Sprintf("Waiting for %s to be deleted before remediating Machine %s: the control plane changes one Machine at a time",
			machineNames(deletingOthers), candidate.Name)
	case len(s.machines) <= 1:
		return fmt.Sprintf("Machine %s is the only control plane Machine: remediating it would delete the control plane; fix or replace it by hand", candidate.Name)
	case !initialized(s) || !hasNode(candidate):
		return "" // no etcd member of its own to lose yet
	case s.workloadWait != "":
		return s.workloadWait
	case s.etcd == nil:
		return "The etcd members were not read: cannot check that remediation keeps etcd quorum"
	case s.etcd.err != nil:
		return "Cannot check that remediation keeps etcd quorum: " + s.etcd.err.Error()
	}
	return etcdQuorumBlocked(s, candidate)
}

// etcdQuorumBlocked checks quorum without the candidate's member: the members backed by a healthy
// Machine (a Node, not deleting, not itself marked for remediation) must be at least the quorum of
// the members left.
func etcdQuorumBlocked(s *scope, candidate *clusterv1.Machine) string {
	healthy := map[string]bool{}
	for _, m := range s.machines {
		if m != candidate && hasNode(m) && !deleting(m) && !needsRemediation(m) {
			healthy[m.Status.NodeRef.Name] = true
		}
	}
	left, healthyLeft := 0, 0
	var unhealthy []string
	for _, mem := range s.etcd.members {
		if mem.Name == candidate.Status.NodeRef.Name {
			continue
		}
		left++
		if healthy[mem.Name] {
			healthyLeft++
		} else {
			unhealthy = append(unhealthy, orDefault(mem.Name, fmt.Sprintf("%x", mem.ID)))
		}
	}
	if left == 0 || healthyLeft < quorum(left) {
		slices.Sort(unhealthy)
		return fmt.Sprintf("Remediating Machine %s would leave %d etcd member(s), %d of them healthy (unhealthy: %s): below the quorum of %d; fix the other members first",
			candidate.Name, left, healthyLeft, orDefault(strings.Join(unhealthy, ", "), "none"), quorum(max(left, 1)))
	}
	return ""
}

// reconcileRemediation deletes, at most once per pass, a control plane Machine a
// MachineHealthCheck marked, after removing its etcd member; the scale up that follows replaces
// it. While remediation is blocked the rest of the reconcile goes on (a scale up may be what
// unblocks it) and the Remediating condition says why.
func (r *Reconciler) reconcileRemediation(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	candidate := remediationCandidate(s.machines)
	s.remediationCandidate = candidate
	if candidate == nil {
		return ctrl.Result{}, false, nil
	}
	if msg := remediationBlocked(s, candidate); msg != "" {
		s.remediationBlocked = msg
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Machine", klog.KObj(candidate))
	if hasNode(candidate) && initialized(s) {
		msg, err := r.removeMachineEtcdMember(ctx, s, candidate)
		if err != nil {
			s.remediationBlocked = err.Error()
			return ctrl.Result{}, false, err
		}
		if msg != "" {
			s.remediationBlocked = msg
			return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil
		}
	}
	// The owner takes OwnerRemediated over from the MachineHealthCheck before deleting: whoever
	// reads the Machine while it goes sees why.
	c := conditions.Stamp(candidate, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
		machineOwnerRemediatedMachineDeletingReason, "Machine is deleting: the KubeadmControlPlane replaces it"), s.now)
	if err := conditions.Apply(ctx, r.Client, candidate, clusterv1.GroupVersion.String(), "Machine", []metav1.Condition{c},
		conditions.ApplyOptions{FieldManager: RemediationFieldManager}); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, false, fmt.Errorf("marking Machine %s as being remediated: %w", candidate.Name, err)
	}
	log.Info("Remediating an unhealthy control plane Machine: deleting it")
	if err := r.Client.Delete(ctx, candidate); err != nil && !apierrors.IsNotFound(err) {
		s.remediationBlocked = fmt.Sprintf("Deleting Machine %s failed: %v", candidate.Name, err)
		return ctrl.Result{}, false, fmt.Errorf("deleting Machine %s for remediation: %w", candidate.Name, err)
	}
	now := metav1.NewTime(s.now)
	candidate.DeletionTimestamp = &now
	s.remediated = candidate.Name
	return ctrl.Result{}, true, nil // its deletion (a Machine watch event) brings the scale up
}

// setRemediating reports remediation: true while a marked Machine waits or is being replaced.
func setRemediating(s *scope) {
	t := controlplanev1.KubeadmControlPlaneRemediatingCondition
	switch {
	case !s.machinesRead:
		return
	case s.remediated != "":
		conditions.Set(s.kcp, conditions.True(t, clusterv1.RemediatingReason, fmt.Sprintf("Deleting Machine %s to replace it", s.remediated)))
	case s.remediationCandidate != nil && s.remediationBlocked != "":
		conditions.Set(s.kcp, conditions.True(t, clusterv1.RemediatingReason, s.remediationBlocked))
	case s.remediationCandidate != nil:
		conditions.Set(s.kcp, conditions.True(t, clusterv1.RemediatingReason, fmt.Sprintf("Machine %s waits for remediation", s.remediationCandidate.Name)))
	default:
		conditions.Set(s.kcp, conditions.False(t, clusterv1.NotRemediatingReason, ""))
	}
}
