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

// Condition types shared by several kinds. Kind-specific files alias these
// (e.g. MachineReadyCondition) so that code reads naturally while every kind
// reports the same type string for the same idea.
const (
	// AvailableCondition reports whether an object can serve its purpose (for a Machine: Ready for at
	// least minReadySeconds; for a MachineDeployment: enough available replicas).
	AvailableCondition = "Available"

	// ReadyCondition reports whether an object is ready.
	ReadyCondition = "Ready"

	// BootstrapConfigReadyCondition mirrors the Ready condition of the referenced bootstrap config.
	BootstrapConfigReadyCondition = "BootstrapConfigReady"

	// InfrastructureReadyCondition mirrors the Ready condition of the referenced infrastructure object.
	InfrastructureReadyCondition = "InfrastructureReady"

	// MachinesReadyCondition aggregates the Ready conditions of the Machines an object controls.
	MachinesReadyCondition = "MachinesReady"

	// MachinesUpToDateCondition aggregates the UpToDate conditions of the Machines an object controls.
	MachinesUpToDateCondition = "MachinesUpToDate"

	// RollingOutCondition is true while an object replaces Machines that are not up to date.
	RollingOutCondition = "RollingOut"

	// ScalingUpCondition is true while an object has fewer replicas than desired.
	ScalingUpCondition = "ScalingUp"

	// ScalingDownCondition is true while an object has more replicas than desired.
	ScalingDownCondition = "ScalingDown"

	// RemediatingCondition reports ongoing remediation of unhealthy Machines.
	RemediatingCondition = "Remediating"

	// DeletingCondition reports the progress of an object's deletion workflow.
	DeletingCondition = "Deleting"

	// PausedCondition is true while reconciliation is paused, through Cluster.spec.paused or the
	// cluster.x-k8s.io/paused annotation.
	PausedCondition = "Paused"
)

// Condition reasons shared by several kinds. Reasons are UpperCamel tokens meant for programs;
// the condition message carries the human-readable detail.
const (
	// AvailableReason is used when an object meets its availability criteria.
	AvailableReason = "Available"

	// NotAvailableReason is used when an object does not meet its availability criteria.
	NotAvailableReason = "NotAvailable"

	// AvailableUnknownReason is used when availability cannot be determined yet.
	AvailableUnknownReason = "AvailableUnknown"

	// ReadyReason is used when an object meets its readiness criteria.
	ReadyReason = "Ready"

	// NotReadyReason is used when an object does not meet its readiness criteria.
	NotReadyReason = "NotReady"

	// ReadyUnknownReason is used when readiness cannot be determined yet.
	ReadyUnknownReason = "ReadyUnknown"

	// UpToDateReason is used when an object matches the spec of its owner.
	UpToDateReason = "UpToDate"

	// NotUpToDateReason is used when an object does not match the spec of its owner.
	NotUpToDateReason = "NotUpToDate"

	// UpToDateUnknownReason is used when up-to-dateness cannot be determined yet.
	UpToDateUnknownReason = "UpToDateUnknown"

	// RollingOutReason is used while an object rolls out changes.
	RollingOutReason = "RollingOut"

	// NotRollingOutReason is used when an object has nothing to roll out.
	NotRollingOutReason = "NotRollingOut"

	// ScalingUpReason is used while an object scales up.
	ScalingUpReason = "ScalingUp"

	// NotScalingUpReason is used when an object does not need to scale up.
	NotScalingUpReason = "NotScalingUp"

	// InvalidSelectorReason is used on ScalingUp (False) when an owner's spec.selector cannot be
	// parsed or does not select the objects it would create: it creates nothing until that is fixed.
	InvalidSelectorReason = "InvalidSelector"

	// ScalingDownReason is used while an object scales down.
	ScalingDownReason = "ScalingDown"

	// NotScalingDownReason is used when an object does not need to scale down.
	NotScalingDownReason = "NotScalingDown"

	// RemediatingReason is used when at least one controlled Machine has HealthCheckSucceeded=False
	// and OwnerRemediated=False.
	RemediatingReason = "Remediating"

	// NotRemediatingReason is used when no controlled Machine waits for remediation.
	NotRemediatingReason = "NotRemediating"

	// NoReplicasReason is used when an object that manages replicas has none.
	NoReplicasReason = "NoReplicas"

	// WaitingForReplicasSetReason is used when spec.replicas is not set yet (e.g. an autoscaler owns it).
	WaitingForReplicasSetReason = "WaitingForReplicasSet"

	// InvalidConditionReportedReason is used when a condition read from another object is malformed
	// (e.g. it has no status).
	InvalidConditionReportedReason = "InvalidConditionReported"

	// InternalErrorReason is used for unexpected errors; the controller logs hold the detail.
	InternalErrorReason = "InternalError"

	// ObjectDoesNotExistReason is used when a referenced object does not exist (yet).
	ObjectDoesNotExistReason = "ObjectDoesNotExist"

	// ObjectDeletedReason is used when a referenced object has been deleted.
	ObjectDeletedReason = "ObjectDeleted"

	// NotPausedReason is used when reconciliation is not paused.
	NotPausedReason = "NotPaused"

	// PausedReason is used when reconciliation is paused.
	PausedReason = "Paused"

	// ConnectionDownReason is used when the connection to the workload cluster is down.
	ConnectionDownReason = "ConnectionDown"

	// NotDeletingReason is used when an object has no deletionTimestamp.
	NotDeletingReason = "NotDeleting"

	// DeletingReason is used while an object is being deleted and no more specific reason applies.
	DeletingReason = "Deleting"

	// DeletionCompletedReason is used right after the object's finalizer has been removed.
	DeletionCompletedReason = "DeletionCompleted"

	// InspectionFailedReason is used when inspecting an underlying object failed.
	InspectionFailedReason = "InspectionFailed"

	// WaitingForClusterInfrastructureReadyReason is used by an InfraMachine waiting for the
	// Cluster's infrastructure to be provisioned.
	WaitingForClusterInfrastructureReadyReason = "WaitingForClusterInfrastructureReady"

	// WaitingForControlPlaneInitializedReason is used by an object waiting for the control plane
	// to be initialized.
	WaitingForControlPlaneInitializedReason = "WaitingForControlPlaneInitialized"

	// WaitingForBootstrapDataReason is used by an InfraMachine waiting for the bootstrap data
	// Secret before it creates the machine.
	WaitingForBootstrapDataReason = "WaitingForBootstrapData"

	// ProvisionedReason is used when an object or piece of infrastructure is provisioned.
	ProvisionedReason = "Provisioned"

	// NotProvisionedReason is used when an object or piece of infrastructure is not provisioned.
	NotProvisionedReason = "NotProvisioned"
)
