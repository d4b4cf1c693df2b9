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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// MachineFinalizer is added by the Machine controller so that it can drain and delete the Node,
	// then delete the InfraMachine and the BootstrapConfig, before the Machine goes away.
	MachineFinalizer = "machine.cluster.x-k8s.io"

	// MachineControlPlaneLabel marks Machines (and related objects) that are part of a control plane.
	// Only the key matters; the value is empty.
	MachineControlPlaneLabel = "cluster.x-k8s.io/control-plane"

	// MachineControlPlaneNameLabel is set on control plane Machines to the name of the control plane
	// object that owns them (a hash when the name is longer than 63 characters).
	MachineControlPlaneNameLabel = "cluster.x-k8s.io/control-plane-name"

	// MachineSetNameLabel is set on Machines owned by a MachineSet to the MachineSet's name (a hash when
	// the name is longer than 63 characters).
	MachineSetNameLabel = "cluster.x-k8s.io/set-name"

	// MachineDeploymentNameLabel is set on MachineSets and Machines owned by a MachineDeployment to the
	// MachineDeployment's name.
	MachineDeploymentNameLabel = "cluster.x-k8s.io/deployment-name"

	// MachinePoolNameLabel is set on Machines owned by a MachinePool to the MachinePool's name (a hash
	// when the name is longer than 63 characters).
	MachinePoolNameLabel = "cluster.x-k8s.io/pool-name"

	// ExcludeNodeDrainingAnnotation on a Machine skips draining its Node on deletion.
	ExcludeNodeDrainingAnnotation = "machine.cluster.x-k8s.io/exclude-node-draining"

	// ExcludeWaitForNodeVolumeDetachAnnotation on a Machine skips waiting for volumes to detach from its
	// Node on deletion.
	ExcludeWaitForNodeVolumeDetachAnnotation = "machine.cluster.x-k8s.io/exclude-wait-for-node-volume-detach"

	// PreDrainDeleteHookAnnotationPrefix is the prefix of Machine annotations that hold Machine deletion
	// before the Node is drained: deletion waits until no annotation with this prefix is left.
	PreDrainDeleteHookAnnotationPrefix = "pre-drain.delete.hook.machine.cluster.x-k8s.io"

	// PreTerminateDeleteHookAnnotationPrefix is the prefix of Machine annotations that hold Machine
	// deletion after drain and before the InfraMachine is deleted: deletion waits until no annotation
	// with this prefix is left.
	PreTerminateDeleteHookAnnotationPrefix = "pre-terminate.delete.hook.machine.cluster.x-k8s.io"

	// MachineCertificatesExpiryDateAnnotation holds the expiry date (RFC3339) of a control plane
	// Machine's certificates; set on the Machine or its BootstrapConfig, the Machine's value wins.
	MachineCertificatesExpiryDateAnnotation = "machine.cluster.x-k8s.io/certificates-expiry"

	// NodeRoleLabelPrefix is a label prefix the Machine controller keeps in sync on Nodes.
	NodeRoleLabelPrefix = "node-role.kubernetes.io"

	// NodeRestrictionLabelDomain is a label domain the Machine controller keeps in sync on Nodes.
	NodeRestrictionLabelDomain = "node-restriction.kubernetes.io"

	// ManagedNodeLabelDomain is the label domain owned by Cluster API on Nodes; Machine labels in this
	// domain are synced to the Node.
	ManagedNodeLabelDomain = "node.cluster.x-k8s.io"

	// ManagedNodeAnnotationDomain is the annotation domain owned by Cluster API on Nodes.
	ManagedNodeAnnotationDomain = "node.cluster.x-k8s.io"
)

// MachinePhase is a coarse, human-oriented summary of a Machine's lifecycle. Controllers must not
// act on it.
type MachinePhase string

const (
	// MachinePhasePending is the phase of a Machine whose bootstrap data is not there yet.
	MachinePhasePending = MachinePhase("Pending")

	// MachinePhaseProvisioning is the phase of a Machine whose bootstrap data exists and whose
	// infrastructure is being provisioned.
	MachinePhaseProvisioning = MachinePhase("Provisioning")

	// MachinePhaseProvisioned is the phase of a Machine whose infrastructure is provisioned (it has a
	// providerID) but whose Node is not known yet.
	MachinePhaseProvisioned = MachinePhase("Provisioned")

	// MachinePhaseRunning is the phase of a Machine with a Node.
	MachinePhaseRunning = MachinePhase("Running")

	// MachinePhaseUpdating is upstream's phase of a Machine being updated in place; Capstan has no
	// in-place updates and never sets it.
	MachinePhaseUpdating = MachinePhase("Updating")

	// MachinePhaseDeleting is the phase of a Machine with a deletionTimestamp.
	MachinePhaseDeleting = MachinePhase("Deleting")

	// MachinePhaseDeleted is upstream's phase of a Machine whose infrastructure is gone; Capstan never
	// sets it (a Machine goes once its infrastructure is gone).
	MachinePhaseDeleted = MachinePhase("Deleted")

	// MachinePhaseFailed is kept for compatibility only: v1beta2 controllers never set it.
	MachinePhaseFailed = MachinePhase("Failed")

	// MachinePhaseUnknown is returned when the phase cannot be determined.
	MachinePhaseUnknown = MachinePhase("Unknown")
)

// Machine's Available condition and reasons.
const (
	// MachineAvailableCondition is true when the Machine has been Ready for at least spec.minReadySeconds.
	MachineAvailableCondition = AvailableCondition

	// MachineWaitingForMinReadySecondsReason is used while a Ready Machine waits out minReadySeconds.
	MachineWaitingForMinReadySecondsReason = "WaitingForMinReadySeconds"

	// MachineAvailableReason is used when the Machine is available.
	MachineAvailableReason = AvailableReason

	// MachineAvailableInternalErrorReason is used on unexpected errors computing the condition.
	MachineAvailableInternalErrorReason = InternalErrorReason
)

// Machine's Ready condition and reasons.
const (
	// MachineReadyCondition is true when the Machine is not deleting and its BootstrapConfigReady,
	// InfrastructureReady, NodeHealthy and (if present) HealthCheckSucceeded conditions, plus every
	// condition in spec.readinessGates, are true.
	MachineReadyCondition = ReadyCondition

	// MachineReadyReason is used when the Machine is ready.
	MachineReadyReason = ReadyReason

	// MachineNotReadyReason is used when at least one readiness criterion is not met.
	MachineNotReadyReason = NotReadyReason

	// MachineReadyUnknownReason is used when a readiness criterion is unknown and none is unmet.
	MachineReadyUnknownReason = ReadyUnknownReason

	// MachineReadyInternalErrorReason is used on unexpected errors computing the condition.
	MachineReadyInternalErrorReason = InternalErrorReason
)

// Machine's UpToDate condition and reasons. The Machine's owner (MachineSet, control plane) sets it.
const (
	// MachineUpToDateCondition is true when the Machine matches the spec of its owner.
	MachineUpToDateCondition = "UpToDate"

	// MachineUpToDateReason is used when the Machine matches its owner's spec.
	MachineUpToDateReason = "UpToDate"

	// MachineNotUpToDateReason is used when the Machine must be rolled out.
	MachineNotUpToDateReason = "NotUpToDate"
)

// Machine's BootstrapConfigReady condition and reasons.
const (
	// MachineBootstrapConfigReadyCondition mirrors the Ready condition of the Machine's BootstrapConfig.
	MachineBootstrapConfigReadyCondition = BootstrapConfigReadyCondition

	// MachineBootstrapDataSecretProvidedReason is used when the user set spec.bootstrap.dataSecretName
	// directly, without a BootstrapConfig.
	MachineBootstrapDataSecretProvidedReason = "DataSecretProvided"

	// MachineBootstrapConfigReadyReason is used when the BootstrapConfig is ready.
	MachineBootstrapConfigReadyReason = ReadyReason

	// MachineBootstrapConfigNotReadyReason is used when the BootstrapConfig is not ready.
	MachineBootstrapConfigNotReadyReason = NotReadyReason

	// MachineBootstrapConfigDoesNotExistReason is used while the referenced BootstrapConfig does not exist.
	MachineBootstrapConfigDoesNotExistReason = ObjectDoesNotExistReason

	// MachineBootstrapConfigDeletedReason is used when the referenced BootstrapConfig has been deleted.
	MachineBootstrapConfigDeletedReason = ObjectDeletedReason
)

// Machine's InfrastructureReady condition and reasons.
const (
	// MachineInfrastructureReadyCondition mirrors the Ready condition of the Machine's InfraMachine.
	MachineInfrastructureReadyCondition = InfrastructureReadyCondition

	// MachineInfrastructureReadyReason is used when the InfraMachine is ready.
	MachineInfrastructureReadyReason = ReadyReason

	// MachineInfrastructureNotReadyReason is used when the InfraMachine is not ready.
	MachineInfrastructureNotReadyReason = NotReadyReason

	// MachineInfrastructureDoesNotExistReason is used while the referenced InfraMachine does not exist.
	MachineInfrastructureDoesNotExistReason = ObjectDoesNotExistReason

	// MachineInfrastructureDeletedReason is used when the referenced InfraMachine has been deleted.
	MachineInfrastructureDeletedReason = ObjectDeletedReason
)

// Machine's NodeHealthy and NodeReady conditions and reasons.
const (
	// MachineNodeHealthyCondition is true when the Machine's Node is Ready and reports no
	// MemoryPressure, DiskPressure or PIDPressure.
	MachineNodeHealthyCondition = "NodeHealthy"

	// MachineNodeReadyCondition mirrors the Ready condition of the Machine's Node.
	MachineNodeReadyCondition = "NodeReady"

	// MachineNodeHealthyReason is used when all Node conditions are healthy.
	MachineNodeHealthyReason = "NodeHealthy"

	// MachineNodeNotHealthyReason is used when at least one Node condition is unhealthy.
	MachineNodeNotHealthyReason = "NodeNotHealthy"

	// MachineNodeDoesNotExistReason is used while the Machine's Node does not exist.
	MachineNodeDoesNotExistReason = "NodeDoesNotExist"

	// MachineNodeDeletedReason is used when the Machine's Node has been deleted.
	MachineNodeDeletedReason = "NodeDeleted"

	// MachineNodeConnectionDownReason is used when the workload cluster cannot be reached.
	MachineNodeConnectionDownReason = ConnectionDownReason
)

// Conditions the MachineHealthCheck controller sets on Machines, and their reasons.
const (
	// MachineHealthCheckSucceededCondition is true when every MachineHealthCheck targeting the Machine
	// finds it healthy.
	MachineHealthCheckSucceededCondition = "HealthCheckSucceeded"

	// MachineHealthCheckSucceededReason is used when the Machine passes all health checks.
	MachineHealthCheckSucceededReason = "HealthCheckSucceeded"

	// MachineHealthCheckUnhealthyNodeReason is used when the Machine's Node fails a health check.
	MachineHealthCheckUnhealthyNodeReason = "UnhealthyNode"

	// MachineHealthCheckNodeStartupTimeoutReason is used when no Node appeared within nodeStartupTimeoutSeconds.
	MachineHealthCheckNodeStartupTimeoutReason = "NodeStartupTimeout"

	// MachineHealthCheckNodeDeletedReason is used when the Node went away while the Machine still exists.
	MachineHealthCheckNodeDeletedReason = "NodeDeleted"

	// MachineHealthCheckHasRemediateAnnotationReason is used when the Machine carries the
	// cluster.x-k8s.io/remediate-machine annotation.
	MachineHealthCheckHasRemediateAnnotationReason = "HasRemediateAnnotation"

	// MachineOwnerRemediatedCondition is set to False on an unhealthy Machine to ask its owner
	// (MachineSet, control plane) to remediate it, usually by deleting and replacing it.
	MachineOwnerRemediatedCondition = "OwnerRemediated"

	// MachineOwnerRemediatedWaitingForRemediationReason is used while the owner has not started remediation.
	MachineOwnerRemediatedWaitingForRemediationReason = "WaitingForRemediation"

	// MachineExternallyRemediatedCondition is set on an unhealthy Machine handed to an external
	// remediation controller through the MachineHealthCheck's remediation.templateRef.
	MachineExternallyRemediatedCondition = "ExternallyRemediated"

	// MachineExternallyRemediatedWaitingForRemediationReason is used while the external controller has
	// not started remediation.
	MachineExternallyRemediatedWaitingForRemediationReason = "WaitingForRemediation"

	// MachineExternallyRemediatedRemediationTemplateNotFoundReason is used when the MachineHealthCheck's
	// remediation.templateRef names a template that does not exist.
	MachineExternallyRemediatedRemediationTemplateNotFoundReason = "RemediationTemplateNotFound"

	// MachineExternallyRemediatedRemediationRequestCreationFailedReason is used when the remediation
	// request could not be created from the template.
	MachineExternallyRemediatedRemediationRequestCreationFailedReason = "RemediationRequestCreationFailed"
)

// Machine's Deleting condition and reasons.
const (
	// MachineDeletingCondition reports the progress of the Machine's deletion.
	MachineDeletingCondition = DeletingCondition

	// MachineNotDeletingReason is used when the Machine has no deletionTimestamp.
	MachineNotDeletingReason = NotDeletingReason

	// MachineDeletingReason is used while deleting when no more specific reason applies.
	MachineDeletingReason = DeletingReason

	// MachineDeletingWaitingForPreDrainHookReason is used while pre-drain hook annotations remain.
	MachineDeletingWaitingForPreDrainHookReason = "WaitingForPreDrainHook"

	// MachineDeletingDrainingNodeReason is used while the Node is being drained.
	MachineDeletingDrainingNodeReason = "DrainingNode"

	// MachineDeletingWaitingForVolumeDetachReason is used while volumes detach from the Node.
	MachineDeletingWaitingForVolumeDetachReason = "WaitingForVolumeDetach"

	// MachineDeletingWaitingForPreTerminateHookReason is used while pre-terminate hook annotations remain.
	MachineDeletingWaitingForPreTerminateHookReason = "WaitingForPreTerminateHook"

	// MachineDeletingWaitingForInfrastructureDeletionReason is used while the InfraMachine is being deleted.
	MachineDeletingWaitingForInfrastructureDeletionReason = "WaitingForInfrastructureDeletion"

	// MachineDeletingWaitingForBootstrapDeletionReason is used while the BootstrapConfig is being deleted.
	MachineDeletingWaitingForBootstrapDeletionReason = "WaitingForBootstrapDeletion"

	// MachineDeletingDeletingNodeReason is used while the Node is being deleted.
	MachineDeletingDeletingNodeReason = "DeletingNode"

	// MachineDeletingDeletionCompletedReason is used right after the Machine finalizer is removed.
	MachineDeletingDeletionCompletedReason = DeletionCompletedReason

	// MachineDeletingInternalErrorReason is used on unexpected errors during deletion.
	MachineDeletingInternalErrorReason = InternalErrorReason
)

// MachineSpec defines the desired state of Machine. It is also the spec of the Machine template of
// MachineSets, MachineDeployments and MachinePools, so every rule here applies to templates too.
type MachineSpec struct {
	// clusterName is the name of the Cluster this Machine belongs to, in the same namespace.
	// It cannot be changed: moving a Machine between Clusters would orphan its Node and provider objects.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'clusterName is immutable (it was \"' + oldSelf + '\"): a Machine cannot move to another Cluster; create a new Machine in the target Cluster instead'"
	ClusterName string `json:"clusterName,omitempty"`

	// bootstrap says where the Machine's bootstrap data comes from: a BootstrapConfig that a bootstrap
	// provider turns into a Secret, or an existing Secret named directly.
	// +required
	Bootstrap Bootstrap `json:"bootstrap,omitempty,omitzero"`

	// infrastructureRef references the provider object that provisions the Machine's infrastructure
	// (e.g. a DevMachine). For a template, it references the object to clone for each Machine.
	// +required
	InfrastructureRef ContractVersionedObjectReference `json:"infrastructureRef,omitempty,omitzero"`

	// version is the Kubernetes version the Machine should run, in the form vMAJOR.MINOR.PATCH
	// (e.g. v1.37.2). Bootstrap providers read it to install matching components.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^v(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)(-[0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?([+][0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?$')",messageExpression="'version \"' + self + '\" is not a Kubernetes version: write it as vMAJOR.MINOR.PATCH, e.g. v1.37.2'"
	Version string `json:"version,omitempty"`

	// providerID is the provider's identifier of the machine, as also found in the Node's
	// spec.providerID; the Machine controller uses it to find the Machine's Node. It is copied from the
	// InfraMachine and is normally not set by users.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// failureDomain is the failure domain to create the Machine in; it must be the name of one of the
	// Cluster's status.failureDomains.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// minReadySeconds is how long the Machine must stay Ready before it counts as Available.
	// Defaults to 0: available as soon as it is ready.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// readinessGates lists extra conditions, e.g. set by a control plane provider or a third-party
	// controller, that must be true (or false, for negative polarity) for the Machine's Ready
	// condition to be true.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []MachineReadinessGate `json:"readinessGates,omitempty"`

	// deletion bounds the time spent on each step of Machine deletion.
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints are the Node taints Cluster API manages for this Machine, at most 64, one per key
	// and effect. Other components may add or remove other taints on the Node (e.g. the node
	// controller's node.kubernetes.io/not-ready). A list map: each entry may have its own field
	// manager.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`
}

// MachineDeletionSpec bounds the time spent on each step of Machine deletion.
// +kubebuilder:validation:XValidation:rule="has(self.nodeDrainTimeoutSeconds) || has(self.nodeVolumeDetachTimeoutSeconds) || has(self.nodeDeletionTimeoutSeconds)",message="is empty: set at least one of nodeDrainTimeoutSeconds, nodeVolumeDetachTimeoutSeconds or nodeDeletionTimeoutSeconds, or leave it out"
type MachineDeletionSpec struct {
	// nodeDrainTimeoutSeconds is the most time spent draining the Node; after it, deletion goes on
	// without a complete drain. 0 (the default) means no limit.
	// This is not `kubectl drain --timeout`: it spans all drain attempts.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDrainTimeoutSeconds *int32 `json:"nodeDrainTimeoutSeconds,omitempty"`

	// nodeVolumeDetachTimeoutSeconds is the most time spent waiting for volumes to detach from the
	// Node. 0 (the default) means no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeVolumeDetachTimeoutSeconds *int32 `json:"nodeVolumeDetachTimeoutSeconds,omitempty"`

	// nodeDeletionTimeoutSeconds is how long the controller keeps trying to delete the Node once the
	// infrastructure is gone. Defaults to 10 seconds; 0 means retry forever.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDeletionTimeoutSeconds *int32 `json:"nodeDeletionTimeoutSeconds,omitempty"`
}

// MachineReadinessGate names a Machine condition that gates the Machine's readiness.
type MachineReadinessGate struct {
	// conditionType is the type of a condition in the Machine's status.conditions. A missing condition
	// counts as Unknown. Both Cluster API conditions and third-party conditions may be used.
	// +required
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	ConditionType string `json:"conditionType,omitempty"`

	// polarity says whether the condition is healthy when True (Positive, the default when omitted)
	// or when False (Negative).
	// +optional
	Polarity ConditionPolarity `json:"polarity,omitempty"`
}

// Bootstrap says where a Machine's bootstrap data comes from. At least one of configRef and
// dataSecretName must be set; the bootstrap provider fills in dataSecretName when it has written the
// Secret.
// +kubebuilder:validation:XValidation:rule="has(self.configRef) || has(self.dataSecretName)",message="bootstrap needs configRef (a bootstrap provider object such as a KubeadmConfig) or dataSecretName (an existing Secret holding the bootstrap data); set one of them"
type Bootstrap struct {
	// configRef references the bootstrap provider object (e.g. a KubeadmConfig) that produces the
	// bootstrap data. Leave it unset when dataSecretName names a Secret you provide yourself.
	// +optional
	ConfigRef ContractVersionedObjectReference `json:"configRef,omitempty,omitzero"`

	// dataSecretName is the name of the Secret, in the Machine's namespace, that holds the bootstrap
	// data under the key "value". Until it is set, the Machine stays Pending.
	// +optional
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=253
	DataSecretName *string `json:"dataSecretName,omitempty"`
}

// MachineStatus defines the observed state of Machine.
// +kubebuilder:validation:MinProperties=1
type MachineStatus struct {
	// conditions are the observations of the Machine's state. Known types: Available, Ready, UpToDate,
	// BootstrapConfigReady, InfrastructureReady, NodeReady, NodeHealthy, Deleting, Paused, and, when a
	// MachineHealthCheck targets the Machine, HealthCheckSucceeded and OwnerRemediated.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the Machine's first provisioning.
	// These fields are part of the provider contract.
	// +optional
	Initialization MachineInitializationStatus `json:"initialization,omitempty,omitzero"`

	// nodeRef names the workload-cluster Node of this Machine, once found by providerID.
	// +optional
	NodeRef MachineNodeReference `json:"nodeRef,omitempty,omitzero"`

	// nodeInfo is the system information reported by the Machine's Node (kubelet version, OS image,
	// machine ID...).
	// +optional
	NodeInfo *corev1.NodeSystemInfo `json:"nodeInfo,omitempty"`

	// lastUpdated is when status.phase last changed.
	// +optional
	LastUpdated metav1.Time `json:"lastUpdated,omitempty,omitzero"`

	// addresses are the Machine's addresses, copied from the InfraMachine.
	// +optional
	Addresses MachineAddresses `json:"addresses,omitempty"`

	// failureDomain is the failure domain the Machine actually runs in, copied from the InfraMachine.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// phase is a human-oriented summary of the Machine's lifecycle; do not build logic on it.
	// +optional
	// +kubebuilder:validation:Enum=Pending;Provisioning;Provisioned;Running;Updating;Deleting;Deleted;Failed;Unknown
	Phase string `json:"phase,omitempty"`

	// certificatesExpiryDate is when the Machine's certificates expire; set for control plane Machines only.
	// +optional
	CertificatesExpiryDate metav1.Time `json:"certificatesExpiryDate,omitempty,omitzero"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// deletion records when timed deletion steps started, so their timeouts survive controller restarts.
	// Present only while the Machine is being deleted.
	// +optional
	Deletion *MachineDeletionStatus `json:"deletion,omitempty"`
}

// MachineNodeReference names the Node of a Machine.
type MachineNodeReference struct {
	// name of the Node, a DNS subdomain.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`
}

// IsDefined reports whether the reference names a Node.
func (r *MachineNodeReference) IsDefined() bool {
	return r != nil && r.Name != ""
}

// MachineInitializationStatus records the one-way milestones of a Machine's first provisioning.
// +kubebuilder:validation:MinProperties=1
type MachineInitializationStatus struct {
	// infrastructureProvisioned becomes true when the InfraMachine reports
	// status.initialization.provisioned; it never goes back to false.
	// +optional
	InfrastructureProvisioned *bool `json:"infrastructureProvisioned,omitempty"`

	// bootstrapDataSecretCreated becomes true when the BootstrapConfig reports
	// status.initialization.dataSecretCreated (or dataSecretName was given directly); it never goes back
	// to false.
	// +optional
	BootstrapDataSecretCreated *bool `json:"bootstrapDataSecretCreated,omitempty"`
}

// MachineDeletionStatus records when timed deletion steps started.
type MachineDeletionStatus struct {
	// nodeDrainStartTime is when draining the Node started; spec.deletion.nodeDrainTimeoutSeconds counts from it.
	// +optional
	NodeDrainStartTime metav1.Time `json:"nodeDrainStartTime,omitempty,omitzero"`

	// waitForNodeVolumeDetachStartTime is when waiting for volumes to detach started;
	// spec.deletion.nodeVolumeDetachTimeoutSeconds counts from it.
	// +optional
	WaitForNodeVolumeDetachStartTime metav1.Time `json:"waitForNodeVolumeDetachStartTime,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machines,shortName=ma,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster the Machine belongs to"
// +kubebuilder:printcolumn:name="NodeName",type="string",JSONPath=".status.nodeRef.name",description="Node of the Machine"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",description="Provider ID of the Machine"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the Machine passes all readiness checks"
// +kubebuilder:printcolumn:name="Available",type="string",JSONPath=`.status.conditions[?(@.type=="Available")].status`,description="Whether the Machine has been Ready for at least minReadySeconds"
// +kubebuilder:printcolumn:name="Up-to-date",type="string",JSONPath=`.status.conditions[?(@.type=="UpToDate")].status`,description="Whether the Machine matches the spec of its owner",priority=10
// +kubebuilder:printcolumn:name="Internal-IP",type="string",JSONPath=`.status.addresses[?(@.type=="InternalIP")].address`,description="Internal IP of the Machine",priority=10
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",description="Machine phase: Pending, Provisioning, Provisioned, Running, Deleting..."
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the Machine was created"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.version",description="Kubernetes version of the Machine"

// Machine is one Kubernetes node's worth of infrastructure plus the bootstrap data that turns it into
// a Node of its Cluster.
type Machine struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the Machine.
	// +required
	Spec MachineSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the Machine.
	// +optional
	Status MachineStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the Machine's conditions, for shared condition helpers.
func (m *Machine) GetConditions() []metav1.Condition {
	return m.Status.Conditions
}

// SetConditions replaces the Machine's conditions, for shared condition helpers.
func (m *Machine) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// MachineList is a list of Machines.
type MachineList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Machines.
	Items []Machine `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &Machine{}, &MachineList{})
}
