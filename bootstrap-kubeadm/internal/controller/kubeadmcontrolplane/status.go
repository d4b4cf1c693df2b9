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
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes the whole status from what the reconcile found. Nothing in it depends on the
// clock or on map order, so a reconcile that changed nothing computes the same status and the
// patch helper writes nothing.
func setStatus(s *scope, reconciled bool) {
	kcp := s.kcp
	kcp.Status.Selector = selectorFor(kcp).String()
	setInitialized(s)
	setCertificatesAvailable(s)
	if s.machinesRead {
		setReplicas(s)
	}
	setControlPlaneComponentsHealthy(s)
	setEtcdClusterHealthy(s)
	setEtcdSnapshotSucceeded(s)
	setAvailable(s)
	setRemediating(s)
	setLastRemediation(s)
	setDeleting(s)
	if reconciled {
		kcp.Status.ObservedGeneration = kcp.Generation
	}
}

func setInitialized(s *scope) {
	t := controlplanev1.KubeadmControlPlaneInitializedCondition
	switch {
	case initialized(s):
		conditions.Set(s.kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneInitializedReason, ""))
	case s.clusterWait != "":
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotInitializedReason, s.clusterWait))
	case s.initWait != "":
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotInitializedReason, s.initWait))
	default:
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotInitializedReason,
			"Waiting for the first control plane Machine to run kubeadm init"))
	}
}

func setCertificatesAvailable(s *scope) {
	if s.certs == nil {
		return // not looked at: keep what the last reconcile that did found
	}
	t := controlplanev1.KubeadmControlPlaneCertificatesAvailableCondition
	switch {
	case len(s.certs.missing) > 0:
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneCertificatesNotAvailableReason,
			fmt.Sprintf("Secret(s) %s do not exist: the control plane is initialized, so new certificate authorities would split it; restore the Secrets from a backup",
				strings.Join(s.certs.missing, ", "))))
	case s.certs.err != nil:
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneCertificatesInternalErrorReason,
			"Reading or generating the cluster certificates failed: "+s.certs.err.Error()))
	default:
		conditions.Set(s.kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneCertificatesAvailableReason, ""))
	}
}

// machineReady is a Machine whose Node joined and whose Ready condition (the core's summary of
// its infrastructure, bootstrap and Node) is true.
func machineReady(m *clusterv1.Machine) bool {
	return hasNode(m) && conditions.IsTrue(m, clusterv1.MachineReadyCondition)
}

func setReplicas(s *scope) {
	kcp := s.kcp
	var ready, available, upToDate int32
	var notReady, outdated, deletingMachines []*clusterv1.Machine
	var outdatedWhy []string
	var lowest *version.Version
	kcp.Status.Version = ""
	for _, m := range s.machines {
		if v, err := version.ParseSemantic(m.Spec.Version); err == nil && (lowest == nil || v.LessThan(lowest)) {
			lowest, kcp.Status.Version = v, m.Spec.Version
		}
		if machineReady(m) {
			ready++
		} else if !deleting(m) {
			notReady = append(notReady, m)
		}
		if conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
			available++
		}
		if deleting(m) {
			deletingMachines = append(deletingMachines, m)
			continue
		}
		if why := s.outdated(m); why != "" {
			outdated = append(outdated, m)
			outdatedWhy = append(outdatedWhy, m.Name+": "+why)
		} else {
			upToDate++
		}
	}
	total, desired := len(s.machines), desiredReplicas(kcp)
	kcp.Status.Replicas = ptr.To(int32(total))
	kcp.Status.ReadyReplicas = ptr.To(ready)
	kcp.Status.AvailableReplicas = ptr.To(available)
	kcp.Status.UpToDateReplicas = ptr.To(upToDate)
	deletingKCP := !kcp.DeletionTimestamp.IsZero()

	waitingFor := func(blocked string) string {
		switch {
		case blocked != "":
			return "; " + blocked
		case s.clusterWait != "":
			return "; " + s.clusterWait
		case len(deletingMachines) > 0:
			return fmt.Sprintf("; waiting for %s to be deleted", machineNames(deletingMachines))
		}
		return ""
	}

	if !deletingKCP && total < desired {
		conditions.Set(kcp, conditions.True(clusterv1.ScalingUpCondition, clusterv1.ScalingUpReason,
			fmt.Sprintf("Scaling up from %d to %d replicas%s", total, desired, waitingFor(s.scaleUpBlocked))))
	} else {
		conditions.Set(kcp, conditions.False(clusterv1.ScalingUpCondition, clusterv1.NotScalingUpReason, ""))
	}
	if !deletingKCP && total > desired {
		conditions.Set(kcp, conditions.True(clusterv1.ScalingDownCondition, clusterv1.ScalingDownReason,
			fmt.Sprintf("Scaling down from %d to %d replicas%s", total, desired, waitingFor(s.scaleDownBlocked))))
	} else {
		conditions.Set(kcp, conditions.False(clusterv1.ScalingDownCondition, clusterv1.NotScalingDownReason, ""))
	}
	if !deletingKCP && len(outdated) > 0 {
		blocked := s.scaleUpBlocked
		if blocked == "" {
			blocked = s.scaleDownBlocked
		}
		conditions.Set(kcp, conditions.True(clusterv1.RollingOutCondition, clusterv1.RollingOutReason,
			fmt.Sprintf("Rolling out %d not up-to-date replicas (%s)%s", len(outdated), strings.Join(outdatedWhy, "; "), waitingFor(blocked))))
	} else {
		conditions.Set(kcp, conditions.False(clusterv1.RollingOutCondition, clusterv1.NotRollingOutReason, ""))
	}

	switch {
	case total == 0:
		conditions.Set(kcp, conditions.True(clusterv1.MachinesReadyCondition, clusterv1.NoReplicasReason, ""))
	case len(notReady) == 0:
		conditions.Set(kcp, conditions.True(clusterv1.MachinesReadyCondition, clusterv1.ReadyReason, ""))
	default:
		conditions.Set(kcp, conditions.False(clusterv1.MachinesReadyCondition, clusterv1.NotReadyReason,
			machineNames(notReady)+" not ready (no Node yet, or the Machine's Ready condition is not true)"))
	}
	switch {
	case total == 0:
		conditions.Set(kcp, conditions.True(clusterv1.MachinesUpToDateCondition, clusterv1.NoReplicasReason, ""))
	case len(outdated) == 0:
		conditions.Set(kcp, conditions.True(clusterv1.MachinesUpToDateCondition, clusterv1.UpToDateReason, ""))
	default:
		conditions.Set(kcp, conditions.False(clusterv1.MachinesUpToDateCondition, clusterv1.NotUpToDateReason,
			machineNames(outdated)+" not up to date"))
	}
}

// setAvailable: the control plane is available once it is initialized, its certificates exist and
// at least one Machine is ready. Etcd quorum and component health join in a later slice.
func setAvailable(s *scope) {
	kcp := s.kcp
	t := controlplanev1.KubeadmControlPlaneAvailableCondition
	notAvailable := func(msg string) {
		conditions.Set(kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotAvailableReason, msg))
	}
	cert := conditions.Get(kcp, controlplanev1.KubeadmControlPlaneCertificatesAvailableCondition)
	switch {
	case !kcp.DeletionTimestamp.IsZero():
		notAvailable("The KubeadmControlPlane is being deleted")
	case s.clusterWait != "":
		notAvailable(s.clusterWait)
	case !initialized(s):
		notAvailable("The control plane is not initialized yet")
	case cert == nil || cert.Status != metav1.ConditionTrue:
		notAvailable("The cluster certificates are not available (see the CertificatesAvailable condition)")
	case ptr.Deref(kcp.Status.ReadyReplicas, 0) == 0:
		notAvailable("No control plane Machine is ready (with a Node and its Ready condition true)")
	default:
		conditions.Set(kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneAvailableReason, ""))
	}
}

func setDeleting(s *scope) {
	kcp := s.kcp
	t := controlplanev1.KubeadmControlPlaneDeletingCondition
	switch {
	case kcp.DeletionTimestamp.IsZero():
		conditions.Set(kcp, conditions.False(t, clusterv1.NotDeletingReason, ""))
	case s.workersWait != "":
		conditions.Set(kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneDeletingWaitingForWorkersDeletionReason,
			fmt.Sprintf("Waiting for %s of Cluster %s to be deleted first: the control plane goes last, as their drain and Node deletion need its API server", s.workersWait, s.cluster.Name)))
	case len(s.machines) > 0:
		conditions.Set(kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneDeletingWaitingForMachineDeletionReason,
			fmt.Sprintf("Waiting for %d control plane Machine(s) to be deleted: %s", len(s.machines), machineNames(s.machines))))
	default:
		conditions.Set(kcp, conditions.True(t, clusterv1.DeletionCompletedReason, "All control plane Machines are gone: removing the finalizer"))
	}
}

// healthNotLookedAt sets t to Unknown when the reconcile did not look at the workload cluster
// because it is not initialized or not connected, and reports whether it did.
func healthNotLookedAt(s *scope, t string) bool {
	switch {
	case s.health != nil:
		return false
	case !s.kcp.DeletionTimestamp.IsZero():
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, "The KubeadmControlPlane is being deleted"))
	case s.clusterWait != "":
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, s.clusterWait))
	case !initialized(s):
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, "Waiting for the control plane to be initialized"))
	case s.workloadWait != "":
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneConnectionDownReason, s.workloadWait))
	}
	// Otherwise an earlier step stopped or failed: keep what the last reconcile that looked found.
	return true
}

// setControlPlaneComponentsHealthy aggregates the Machines' static Pod conditions, naming each
// Pod that is not healthy.
func setControlPlaneComponentsHealthy(s *scope) {
	t := controlplanev1.KubeadmControlPlaneControlPlaneComponentsHealthyCondition
	if healthNotLookedAt(s, t) {
		return
	}
	var unhealthy, unknown []string
	withNode := 0
	for _, m := range s.machines {
		conds, ok := s.health[m.Name]
		if !ok {
			continue
		}
		withNode++
		for _, c := range conds {
			if c.Type == controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition {
				continue
			}
			switch c.Status {
			case metav1.ConditionFalse:
				unhealthy = append(unhealthy, "Machine "+m.Name+": "+c.Message)
			case metav1.ConditionUnknown:
				unknown = append(unknown, "Machine "+m.Name+": "+c.Message)
			}
		}
	}
	switch {
	case withNode == 0:
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, "No control plane Machine has a Node yet"))
	case len(unhealthy) > 0:
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason, firstLines(append(unhealthy, unknown...))))
	case len(unknown) > 0:
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, firstLines(unknown)))
	default:
		conditions.Set(s.kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneHealthyReason, ""))
	}
}

// setEtcdClusterHealthy reports the member reconciliation: waiting for nodeRefs, members no
// Machine accounts for (and whether one was just removed), Machines without a member, members
// that are not healthy (and a deleting Machine's member that is kept for quorum).
func setEtcdClusterHealthy(s *scope) {
	t := controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition
	if healthNotLookedAt(s, t) {
		return
	}
	e, p := s.etcd, s.etcdPlan
	switch {
	case !s.etcdManaged():
		// As upstream: the control plane reports an external etcd healthy, since it neither runs
		// nor watches it.
		conditions.Set(s.kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneHealthyReason,
			"etcd is external (spec.kubeadmConfigSpec.clusterConfiguration.etcd.external): the control plane neither runs nor manages its members"))
	case e == nil:
		return
	case e.err != nil:
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneInspectionFailedReason,
			"Cannot read the etcd members: "+e.err.Error()))
	case p == nil:
		return
	case len(p.wait) > 0:
		msg := fmt.Sprintf("Waiting for %s to have a nodeRef: the expected etcd members are the Nodes of the control plane Machines", machineNames(p.wait))
		if len(p.unexpected) > 0 {
			msg += fmt.Sprintf("; members %s are not accounted for yet", membersMessage(p.unexpected))
		}
		conditions.Set(s.kcp, conditions.Unknown(t, controlplanev1.KubeadmControlPlaneHealthUnknownReason, msg))
	case s.etcdRemoved != "":
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason,
			fmt.Sprintf("Removed etcd member %s: no control plane Machine has a Node of that name (members: %s)", s.etcdRemoved, membersMessage(e.members))))
	case len(p.unexpected) > 0:
		msg := fmt.Sprintf("etcd members %s belong to no control plane Machine's Node", membersMessage(p.unexpected))
		if p.blocked != "" {
			msg += "; not removed: " + p.blocked
		}
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason, msg))
	case len(p.missing) > 0:
		var parts []string
		for _, m := range p.missing {
			parts = append(parts, fmt.Sprintf("Machine %s (Node %s)", m.Name, m.Status.NodeRef.Name))
		}
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason,
			fmt.Sprintf("No etcd member for %s: kubeadm join adds it; check the etcd Pod on the node (members: %s)", strings.Join(parts, ", "), membersMessage(e.members))))
	case len(unhealthyMembers(s)) > 0:
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneNotHealthyReason,
			firstLines(unhealthyMembers(s))+prefixed("; ", s.preTerminateWait)))
	default:
		conditions.Set(s.kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneHealthyReason, ""))
	}
}

// unhealthyMembers names the Machines (not being deleted) whose listed etcd member is not healthy,
// and why.
func unhealthyMembers(s *scope) []string {
	var out []string
	for _, m := range s.machines {
		if !hasNode(m) || deleting(m) {
			continue
		}
		if _, listed := s.etcd.memberNamed(m.Status.NodeRef.Name); !listed {
			continue
		}
		if ok, why := s.etcd.memberHealthy(m.Status.NodeRef.Name); !ok {
			out = append(out, fmt.Sprintf("Machine %s: %s", m.Name, why))
		}
	}
	return out
}

// firstLines joins up to five messages and counts the rest.
func firstLines(msgs []string) string {
	const shown = 5
	if len(msgs) <= shown {
		return strings.Join(msgs, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(msgs[:shown], "; "), len(msgs)-shown)
}

// setEtcdSnapshotSucceeded reports the scheduled snapshots; absent without a schedule, kept as
// it was when the step did not run. The message changes only with the newest file and the
// schedule, so a steady control plane writes nothing between snapshots.
func setEtcdSnapshotSucceeded(s *scope) {
	t := controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededCondition
	if _, scheduled := s.kcp.Annotations[controlplanev1.EtcdSnapshotIntervalAnnotation]; !scheduled {
		conditions.Delete(s.kcp, t)
		return
	}
	r := s.snapshots
	last := ""
	if r != nil && r.newest != nil {
		last = fmt.Sprintf("; the last one, %s, was taken %s", r.newest.path, r.newest.at.UTC().Format(time.RFC3339))
	}
	switch {
	case r == nil:
	case r.invalid != "":
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneEtcdSnapshotInvalidScheduleReason, r.invalid))
	case r.waiting != "":
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneEtcdSnapshotWaitingReason, "The first scheduled snapshot waits: "+r.waiting))
	case r.failed != "":
		conditions.Set(s.kcp, conditions.False(t, controlplanev1.KubeadmControlPlaneEtcdSnapshotFailedReason,
			fmt.Sprintf("The scheduled snapshot failed (retried every minute): %s%s", r.failed, last)))
	default:
		conditions.Set(s.kcp, conditions.True(t, controlplanev1.KubeadmControlPlaneEtcdSnapshotSucceededReason,
			fmt.Sprintf("Snapshot %s taken %s; the next is due %s, the newest %d kept", r.newest.path, r.newest.at.UTC().Format(time.RFC3339),
				r.next.UTC().Format(time.RFC3339), r.keep)))
	}
}
