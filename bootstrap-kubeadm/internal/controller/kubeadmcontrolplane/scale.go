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
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/kcprollout"
)

// desiredReplicas is spec.replicas, 1 when unset (the API defaults it).
func desiredReplicas(kcp *controlplanev1.KubeadmControlPlane) int {
	return int(ptr.Deref(kcp.Spec.Replicas, 1))
}

// maxSurge is spec.rollout.strategy.rollingUpdate.maxSurge, 1 when unset; admission allows 0 or 1.
func maxSurge(kcp *controlplanev1.KubeadmControlPlane) int {
	if v := kcp.Spec.Rollout.Strategy.RollingUpdate.MaxSurge; v != nil {
		return v.IntValue()
	}
	return 1
}

// plan decides, from the Machines (deleting ones included: they still run an etcd member), whether
// to add or remove one (kcprollout.Decide).
func plan(kcp *controlplanev1.KubeadmControlPlane, machines []*clusterv1.Machine, outdated func(*clusterv1.Machine) bool) kcprollout.Action {
	return kcprollout.Decide(len(machines), desiredReplicas(kcp), maxSurge(kcp), slices.ContainsFunc(machines, outdated))
}

// reconcileReplicas adds or removes at most one Machine. The decision to act is always taken on a
// live list: a cache that lags can cost one API read, never a duplicate Machine.
func (r *Reconciler) reconcileReplicas(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if plan(s.kcp, s.machines, s.isOutdated) == kcprollout.None {
		return ctrl.Result{}, false, nil
	}
	if err := r.readMachines(ctx, s, r.APIReader); err != nil {
		return ctrl.Result{}, false, err
	}
	switch plan(s.kcp, s.machines, s.isOutdated) {
	case kcprollout.ScaleUp:
		return ctrl.Result{}, false, r.scaleUp(ctx, s)
	case kcprollout.ScaleDown:
		return ctrl.Result{}, false, r.scaleDown(ctx, s)
	}
	return ctrl.Result{}, false, nil
}

// scaleUp creates one Machine: the first (kubeadm init) only while the Cluster's control plane is
// not initialized, the others (kubeadm join) only once it is and every Machine has a Node.
func (r *Reconciler) scaleUp(ctx context.Context, s *scope) error {
	c, kcp := s.cluster, s.kcp
	init := len(s.machines) == 0
	switch {
	case !c.DeletionTimestamp.IsZero():
		s.scaleUpBlocked = fmt.Sprintf("Cluster %s is being deleted", c.Name)
		return nil
	case init && (clusterInitialized(c) || initialized(s)):
		s.scaleUpBlocked = fmt.Sprintf("Cluster %s reports its control plane initialized but no control plane Machine is left: a new Machine would run kubeadm init and start a new cluster; restore the control plane from a backup", c.Name)
		return nil
	case !init && !initialized(s):
		s.scaleUpBlocked = fmt.Sprintf("Waiting for the control plane to be initialized (ConfigMap %s in the workload cluster) before adding Machines", kubeadmConfigMap)
		return nil
	}
	if msg, unhealthy := preflight(s, nil); msg != "" {
		s.scaleUpBlocked = msg
		r.recordUnhealthy(s, unhealthy, msg)
		return nil
	}
	r.forgetUnhealthy(s)
	var upToDate []*clusterv1.Machine
	for _, m := range s.machines {
		if !deleting(m) && !s.isOutdated(m) {
			upToDate = append(upToDate, m)
		}
	}
	if err := r.refreshRemediationInProgress(ctx, s); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("Scaling up the control plane", "from", len(s.machines), "desired", desiredReplicas(kcp))
	rollout := s.rollingOut()
	m, err := r.createMachine(ctx, s, kcprollout.FailureDomainForScaleUp(kcprollout.ControlPlaneFailureDomains(c), upToDate), init)
	r.recordScaleUp(s, m, init, rollout, err)
	if err != nil {
		s.scaleUpBlocked = "Creating a Machine failed: " + err.Error()
		return err
	}
	s.machines = append(s.machines, m)
	slices.SortFunc(s.machines, func(a, b *clusterv1.Machine) int { return strings.Compare(a.Name, b.Name) })
	return nil
}

// scaleDown removes one Machine. It chooses the Machine FIRST and runs the preflight checks on the
// others only: a controller that stopped after deleting a Machine finds that Machine chosen
// again and is not blocked by it. Its etcd member is removed later, at its pre-terminate hook.
func (r *Reconciler) scaleDown(ctx context.Context, s *scope) error {
	log := ctrl.LoggerFrom(ctx)
	kcp := s.kcp
	now := metav1.NewTime(s.now)
	chosen := kcprollout.SelectForScaleDown(s.machines, s.isOutdated, kcprollout.ControlPlaneFailureDomains(s.cluster))
	if deleting(chosen) {
		log.V(4).Info("The Machine chosen for scale down is already being deleted", "Machine", klog.KObj(chosen))
		if s.preTerminateWait != "" {
			s.scaleDownBlocked = fmt.Sprintf("waiting for Machine %s to be deleted; %s", chosen.Name, s.preTerminateWait)
		}
		return nil // its deletion brings us back through the Machine watch
	}
	if msg, unhealthy := preflight(s, chosen); msg != "" {
		s.scaleDownBlocked = msg
		r.recordUnhealthy(s, unhealthy, msg)
		return nil
	}
	r.forgetUnhealthy(s)
	// The Machine's etcd member goes after its drain, at its pre-terminate hook
	// (preterminate.go); deleting it must already keep quorum among the healthy members left,
	// or the hook would hold a drained Machine that cannot go.
	if msg := machineRemovalBlocked(s, chosen, "Scaling down Machine "+chosen.Name, nil); msg != "" {
		s.scaleDownBlocked = msg
		return nil
	}
	log.Info("Scaling down the control plane: deleting Machine", "Machine", klog.KObj(chosen), "from", len(s.machines), "desired", desiredReplicas(kcp))
	rollout := s.rollingOut()
	if err := r.Client.Delete(ctx, chosen); err != nil && !apierrors.IsNotFound(err) {
		s.scaleDownBlocked = fmt.Sprintf("Deleting Machine %s failed: %v", chosen.Name, err)
		r.recordScaleDown(s, chosen, rollout, err)
		return fmt.Errorf("deleting Machine %s: %w", chosen.Name, err)
	}
	r.recordScaleDown(s, chosen, rollout, nil)
	chosen.DeletionTimestamp = &now
	return nil
}

// preflight says why the control plane may not change now, excluding the Machine chosen for
// removal (nil on scale up); empty when it may. Another deleting Machine blocks (one change at a
// time), and so does a Machine whose Node has not joined yet. Once the control plane is
// initialized, every other Machine's etcd member must be healthy, as upstream's preflight
// requires EtcdMemberHealthy: listed, answering for itself, no alarm (checkMembersHealth). A
// deleting Machine's member is never looked at: its pre-terminate hook removes it, so a
// controller stopped after that removal is not blocked by it, whichever Machine it chooses next.
// The static Pods' health is reported (ControlPlaneComponentsHealthy) but does not block: a
// kubelet that stopped reporting a Pod must not freeze the replacement of its Machine. unhealthy
// says the checks failed on the control plane's health (etcd), not on a step still under way.
func preflight(s *scope, exclude *clusterv1.Machine) (msg string, unhealthy bool) {
	var deletingOthers, withoutNode []*clusterv1.Machine
	var unhealthyMembers []string
	for _, m := range s.machines {
		switch {
		case m == exclude:
		case deleting(m):
			deletingOthers = append(deletingOthers, m)
		case !hasNode(m):
			withoutNode = append(withoutNode, m)
		case s.etcdManaged() && s.etcd != nil && s.etcd.err == nil:
			if ok, why := s.etcd.memberHealthy(m.Status.NodeRef.Name); !ok {
				unhealthyMembers = append(unhealthyMembers, fmt.Sprintf("Machine %s: %s", m.Name, why))
			}
		}
	}
	switch {
	case len(deletingOthers) > 0:
		return fmt.Sprintf("Waiting for %s to be deleted: the control plane changes one Machine at a time%s",
			machineNames(deletingOthers), prefixed("; ", s.preTerminateWait)), false
	case len(withoutNode) > 0:
		return fmt.Sprintf("Waiting for %s to have a Node (status.nodeRef): the control plane changes one Machine at a time, after the others have joined", machineNames(withoutNode)), false
	case !initialized(s) || len(s.machines) == 0 || (exclude != nil && len(s.machines) == 1):
		return "", false
	case s.workloadWait != "":
		return s.workloadWait, false
	case !s.etcdManaged():
		return "", false // an external etcd is not the control plane's to protect
	case s.etcd == nil:
		return "The etcd members were not read", false
	case s.etcd.err != nil:
		return "Cannot check the etcd members: " + s.etcd.err.Error(), true
	case len(unhealthyMembers) > 0:
		return fmt.Sprintf("Waiting for the etcd members of the other Machines to be healthy (%s): the control plane changes only while every other Machine's etcd member is healthy",
			strings.Join(unhealthyMembers, "; ")), true
	}
	return "", false
}

// machineRemovalBlocked says why deleting Machine m (what) must wait for etcd: its member's
// removal would leave fewer healthy members (healthy adds to the members' own health) than the
// quorum of those left. Empty when it keeps quorum, or when m has no member to lose.
func machineRemovalBlocked(s *scope, m *clusterv1.Machine, what string, healthy func(etcd.Member) bool) string {
	switch {
	case !s.etcdManaged():
		return "" // etcd is external: no member goes with the Machine
	case !initialized(s) || !hasNode(m):
		return "" // no etcd member of its own to lose yet
	case s.workloadWait != "":
		return s.workloadWait
	case s.etcd == nil || s.etcd.err != nil:
		return fmt.Sprintf("%s waits: cannot check that it keeps etcd quorum: %v", what, etcdErr(s.etcd))
	}
	mem, ok := s.etcd.memberNamed(m.Status.NodeRef.Name)
	if !ok {
		mem = etcd.Member{} // no member of its own: every listed member stays
	}
	return etcdRemovalBlocked(s.etcd, mem, what, healthy)
}

// prefixed is s after prefix, or empty when s is.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
