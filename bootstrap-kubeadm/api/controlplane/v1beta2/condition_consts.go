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

package v1beta2

import (
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// KubeadmControlPlane's Available condition and reasons. The Cluster controller mirrors it into the
// Cluster's ControlPlaneAvailable condition.
const (
	// KubeadmControlPlaneAvailableCondition is true when the control plane is not deleting, its
	// certificates exist, at least one Machine runs healthy control plane components and etcd has
	// quorum.
	KubeadmControlPlaneAvailableCondition = clusterv1.AvailableCondition

	// KubeadmControlPlaneAvailableReason is used when the control plane is available.
	KubeadmControlPlaneAvailableReason = clusterv1.AvailableReason

	// KubeadmControlPlaneNotAvailableReason is used when the control plane is not available.
	KubeadmControlPlaneNotAvailableReason = clusterv1.NotAvailableReason

	// KubeadmControlPlaneAvailableInspectionFailedReason is used when the workload cluster could not
	// be inspected.
	KubeadmControlPlaneAvailableInspectionFailedReason = clusterv1.InspectionFailedReason
)

// KubeadmControlPlane's Initialized condition and reasons.
const (
	// KubeadmControlPlaneInitializedCondition is true once the control plane accepts requests.
	KubeadmControlPlaneInitializedCondition = "Initialized"

	// KubeadmControlPlaneInitializedReason is used once the control plane is initialized.
	KubeadmControlPlaneInitializedReason = "Initialized"

	// KubeadmControlPlaneNotInitializedReason is used until the control plane is initialized.
	KubeadmControlPlaneNotInitializedReason = "NotInitialized"
)

// KubeadmControlPlane's CertificatesAvailable condition and reasons.
const (
	// KubeadmControlPlaneCertificatesAvailableCondition is true when all cluster certificates
	// (ca, etcd, proxy, sa) exist, generated or supplied by the user.
	KubeadmControlPlaneCertificatesAvailableCondition = "CertificatesAvailable"

	// KubeadmControlPlaneCertificatesAvailableReason is used when the certificates exist.
	KubeadmControlPlaneCertificatesAvailableReason = clusterv1.AvailableReason

	// KubeadmControlPlaneCertificatesNotAvailableReason is used when certificates are missing after
	// initialization, e.g. because a user deleted one.
	KubeadmControlPlaneCertificatesNotAvailableReason = clusterv1.NotAvailableReason

	// KubeadmControlPlaneCertificatesInternalErrorReason is used on unexpected errors reconciling
	// the certificates.
	KubeadmControlPlaneCertificatesInternalErrorReason = clusterv1.InternalErrorReason
)

// KubeadmControlPlane's health conditions, aggregated from the per-Machine conditions below.
const (
	// KubeadmControlPlaneEtcdClusterHealthyCondition reports the health of the stacked etcd cluster.
	KubeadmControlPlaneEtcdClusterHealthyCondition = "EtcdClusterHealthy"

	// KubeadmControlPlaneControlPlaneComponentsHealthyCondition reports the health of the
	// kube-apiserver, kube-controller-manager, kube-scheduler and etcd Pods.
	KubeadmControlPlaneControlPlaneComponentsHealthyCondition = "ControlPlaneComponentsHealthy"

	// KubeadmControlPlaneHealthyReason is used when every member or component is healthy.
	KubeadmControlPlaneHealthyReason = "Healthy"

	// KubeadmControlPlaneNotHealthyReason is used when a member or component is not healthy.
	KubeadmControlPlaneNotHealthyReason = "NotHealthy"

	// KubeadmControlPlaneHealthUnknownReason is used when health cannot be determined.
	KubeadmControlPlaneHealthUnknownReason = "HealthUnknown"

	// KubeadmControlPlaneConnectionDownReason is used when the workload cluster cannot be reached.
	KubeadmControlPlaneConnectionDownReason = clusterv1.ConnectionDownReason

	// KubeadmControlPlaneInspectionFailedReason is used when inspecting the workload cluster failed.
	KubeadmControlPlaneInspectionFailedReason = clusterv1.InspectionFailedReason
)

// KubeadmControlPlane's scheduled etcd snapshots (EtcdSnapshotIntervalAnnotation); the condition
// is absent without a schedule.
const (
	// KubeadmControlPlaneEtcdSnapshotSucceededCondition is True while the newest scheduled
	// snapshot is on time, and says which file it is and when the next is due.
	KubeadmControlPlaneEtcdSnapshotSucceededCondition = "EtcdSnapshotSucceeded"

	// KubeadmControlPlaneEtcdSnapshotSucceededReason is used when the newest snapshot is on time.
	KubeadmControlPlaneEtcdSnapshotSucceededReason = "SnapshotSucceeded"

	// KubeadmControlPlaneEtcdSnapshotFailedReason is used when a due snapshot could not be taken
	// or saved; it is retried every minute.
	KubeadmControlPlaneEtcdSnapshotFailedReason = "SnapshotFailed"

	// KubeadmControlPlaneEtcdSnapshotWaitingReason is used while the first snapshot waits for
	// the control plane to be initialized and its etcd reachable.
	KubeadmControlPlaneEtcdSnapshotWaitingReason = "WaitingForEtcd"

	// KubeadmControlPlaneEtcdSnapshotInvalidScheduleReason is used when the schedule's
	// annotations are not valid, or the control plane's etcd is external.
	KubeadmControlPlaneEtcdSnapshotInvalidScheduleReason = "InvalidSchedule"
)

// KubeadmControlPlane's replica conditions; reasons are the core ones (clusterv1.*Reason).
const (
	// KubeadmControlPlaneMachinesReadyCondition aggregates the Ready conditions of the Machines.
	KubeadmControlPlaneMachinesReadyCondition = clusterv1.MachinesReadyCondition

	// KubeadmControlPlaneMachinesUpToDateCondition aggregates the UpToDate conditions of the Machines.
	KubeadmControlPlaneMachinesUpToDateCondition = clusterv1.MachinesUpToDateCondition

	// KubeadmControlPlaneRollingOutCondition is true while at least one Machine is not up to date.
	KubeadmControlPlaneRollingOutCondition = clusterv1.RollingOutCondition

	// KubeadmControlPlaneScalingUpCondition is true while there are fewer Machines than spec.replicas.
	KubeadmControlPlaneScalingUpCondition = clusterv1.ScalingUpCondition

	// KubeadmControlPlaneScalingDownCondition is true while there are more Machines than spec.replicas.
	KubeadmControlPlaneScalingDownCondition = clusterv1.ScalingDownCondition

	// KubeadmControlPlaneRemediatingCondition reports ongoing remediation of the Machines.
	KubeadmControlPlaneRemediatingCondition = clusterv1.RemediatingCondition

	// KubeadmControlPlaneDeletingCondition reports the progress of the control plane's deletion.
	KubeadmControlPlaneDeletingCondition = clusterv1.DeletingCondition

	// KubeadmControlPlaneDeletingWaitingForWorkersDeletionReason is used while worker Machines of the
	// Cluster still exist: the control plane goes last.
	KubeadmControlPlaneDeletingWaitingForWorkersDeletionReason = "WaitingForWorkersDeletion"

	// KubeadmControlPlaneDeletingWaitingForMachineDeletionReason is used while control plane
	// Machines are being deleted.
	KubeadmControlPlaneDeletingWaitingForMachineDeletionReason = "WaitingForMachineDeletion"
)

// Conditions the KubeadmControlPlane controller sets on its Machines, and their reasons.
const (
	// KubeadmControlPlaneMachineAPIServerPodHealthyCondition reports the kube-apiserver Pod of the Machine.
	KubeadmControlPlaneMachineAPIServerPodHealthyCondition = "APIServerPodHealthy"

	// KubeadmControlPlaneMachineControllerManagerPodHealthyCondition reports the kube-controller-manager Pod.
	KubeadmControlPlaneMachineControllerManagerPodHealthyCondition = "ControllerManagerPodHealthy"

	// KubeadmControlPlaneMachineSchedulerPodHealthyCondition reports the kube-scheduler Pod.
	KubeadmControlPlaneMachineSchedulerPodHealthyCondition = "SchedulerPodHealthy"

	// KubeadmControlPlaneMachineEtcdPodHealthyCondition reports the etcd Pod.
	KubeadmControlPlaneMachineEtcdPodHealthyCondition = "EtcdPodHealthy"

	// KubeadmControlPlaneMachineEtcdMemberHealthyCondition reports the Machine's etcd member.
	KubeadmControlPlaneMachineEtcdMemberHealthyCondition = "EtcdMemberHealthy"

	// KubeadmControlPlaneMachinePodRunningReason is used when the Pod runs.
	KubeadmControlPlaneMachinePodRunningReason = "Running"

	// KubeadmControlPlaneMachinePodProvisioningReason is used while the Pod is Pending.
	KubeadmControlPlaneMachinePodProvisioningReason = "Provisioning"

	// KubeadmControlPlaneMachinePodDoesNotExistReason is used when the Pod does not exist.
	KubeadmControlPlaneMachinePodDoesNotExistReason = "DoesNotExist"

	// KubeadmControlPlaneMachinePodFailedReason is used when the Pod failed (e.g. CrashLoopBackOff).
	KubeadmControlPlaneMachinePodFailedReason = "Failed"
)
