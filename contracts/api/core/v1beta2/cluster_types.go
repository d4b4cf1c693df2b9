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
	"fmt"
	"net"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// ClusterFinalizer is added by the Cluster controller so that it can delete the Cluster's
	// descendants, control plane and infrastructure, in that order, before the Cluster goes away.
	ClusterFinalizer = "cluster.cluster.x-k8s.io"

	// ClusterKind is the kind of Cluster.
	ClusterKind = "Cluster"
)

// ClusterPhase is a coarse, human-oriented summary of a Cluster's lifecycle. Controllers must not
// act on it; they look at conditions and the initialization fields instead.
type ClusterPhase string

const (
	// ClusterPhasePending is set on the first reconcile.
	ClusterPhasePending = ClusterPhase("Pending")

	// ClusterPhaseProvisioning is set once infrastructureRef or controlPlaneRef is set.
	ClusterPhaseProvisioning = ClusterPhase("Provisioning")

	// ClusterPhaseProvisioned is set once the infrastructure is provisioned and the control plane
	// endpoint is known.
	ClusterPhaseProvisioned = ClusterPhase("Provisioned")

	// ClusterPhaseDeleting is set once deletion has started.
	ClusterPhaseDeleting = ClusterPhase("Deleting")

	// ClusterPhaseFailed is kept for compatibility only: v1beta2 controllers never set it.
	ClusterPhaseFailed = ClusterPhase("Failed")

	// ClusterPhaseUnknown is returned when the phase cannot be determined.
	ClusterPhaseUnknown = ClusterPhase("Unknown")
)

// Cluster's Available condition and reasons.
const (
	// ClusterAvailableCondition is true when the Cluster is not deleting and its RemoteConnectionProbe,
	// InfrastructureReady, ControlPlaneAvailable and WorkersAvailable conditions, plus every condition
	// listed in spec.availabilityGates, are true.
	ClusterAvailableCondition = AvailableCondition

	// ClusterAvailableReason is used when the availability criteria are met.
	ClusterAvailableReason = AvailableReason

	// ClusterNotAvailableReason is used when at least one availability criterion is not met.
	ClusterNotAvailableReason = NotAvailableReason

	// ClusterAvailableUnknownReason is used when a criterion is unknown and none is unmet.
	ClusterAvailableUnknownReason = AvailableUnknownReason

	// ClusterAvailableInternalErrorReason is used on unexpected errors computing the condition.
	ClusterAvailableInternalErrorReason = InternalErrorReason
)

// Cluster's InfrastructureReady condition and reasons.
const (
	// ClusterInfrastructureReadyCondition mirrors the Ready condition of the InfraCluster.
	ClusterInfrastructureReadyCondition = InfrastructureReadyCondition

	// ClusterInfrastructureReadyReason is used when the InfraCluster is ready.
	ClusterInfrastructureReadyReason = ReadyReason

	// ClusterInfrastructureNotReadyReason is used when the InfraCluster is not ready.
	ClusterInfrastructureNotReadyReason = NotReadyReason

	// ClusterInfrastructureInvalidConditionReportedReason is used when the InfraCluster reports a
	// malformed Ready condition.
	ClusterInfrastructureInvalidConditionReportedReason = InvalidConditionReportedReason

	// ClusterInfrastructureInternalErrorReason is used on unexpected errors reading the InfraCluster.
	ClusterInfrastructureInternalErrorReason = InternalErrorReason

	// ClusterInfrastructureDoesNotExistReason is used while the referenced InfraCluster does not exist.
	ClusterInfrastructureDoesNotExistReason = ObjectDoesNotExistReason

	// ClusterInfrastructureDeletedReason is used when the referenced InfraCluster has been deleted.
	ClusterInfrastructureDeletedReason = ObjectDeletedReason
)

// Cluster's ControlPlaneInitialized condition and reasons.
const (
	// ClusterControlPlaneInitializedCondition becomes true, once and for good, when the control plane
	// can accept requests; it gates work that needs an API server but not a full HA control plane,
	// such as joining workers.
	ClusterControlPlaneInitializedCondition = "ControlPlaneInitialized"

	// ClusterControlPlaneInitializedReason is used when the control plane is initialized.
	ClusterControlPlaneInitializedReason = "Initialized"

	// ClusterControlPlaneNotInitializedReason is used while the control plane is not initialized.
	ClusterControlPlaneNotInitializedReason = "NotInitialized"

	// ClusterControlPlaneInitializedInternalErrorReason is used on unexpected errors computing the condition.
	ClusterControlPlaneInitializedInternalErrorReason = InternalErrorReason
)

// Cluster's ControlPlaneAvailable condition and reasons.
const (
	// ClusterControlPlaneAvailableCondition mirrors the Available condition of the control plane object.
	ClusterControlPlaneAvailableCondition = "ControlPlaneAvailable"

	// ClusterControlPlaneAvailableReason is used when the control plane is available.
	ClusterControlPlaneAvailableReason = AvailableReason

	// ClusterControlPlaneNotAvailableReason is used when the control plane is not available.
	ClusterControlPlaneNotAvailableReason = NotAvailableReason

	// ClusterControlPlaneDoesNotExistReason is used while the referenced control plane does not exist.
	ClusterControlPlaneDoesNotExistReason = ObjectDoesNotExistReason

	// ClusterControlPlaneDeletedReason is used when the referenced control plane has been deleted.
	ClusterControlPlaneDeletedReason = ObjectDeletedReason
)

// Cluster's WorkersAvailable condition and reasons.
const (
	// ClusterWorkersAvailableCondition summarizes the Available conditions of the Cluster's
	// MachineDeployments and MachinePools (stand-alone MachineSets and Machines are not included).
	ClusterWorkersAvailableCondition = "WorkersAvailable"

	// ClusterWorkersAvailableReason is used when all of them are available.
	ClusterWorkersAvailableReason = AvailableReason

	// ClusterWorkersNotAvailableReason is used when at least one of them is not available.
	ClusterWorkersNotAvailableReason = NotAvailableReason

	// ClusterWorkersAvailableNoWorkersReason is used when the Cluster has no MachineDeployment or MachinePool.
	ClusterWorkersAvailableNoWorkersReason = "NoWorkers"
)

// Cluster's RemoteConnectionProbe condition and reasons.
const (
	// ClusterRemoteConnectionProbeCondition is true while the workload cluster's API server answers the
	// management cluster's health probe.
	ClusterRemoteConnectionProbeCondition = "RemoteConnectionProbe"

	// ClusterRemoteConnectionProbeFailedReason is used when the probe keeps failing.
	ClusterRemoteConnectionProbeFailedReason = "ProbeFailed"

	// ClusterRemoteConnectionProbeSucceededReason is used when the probe succeeds.
	ClusterRemoteConnectionProbeSucceededReason = "ProbeSucceeded"
)

// Cluster's Deleting condition and reasons.
const (
	// ClusterDeletingCondition reports the progress of the Cluster's deletion.
	ClusterDeletingCondition = DeletingCondition

	// ClusterNotDeletingReason is used when the Cluster has no deletionTimestamp.
	ClusterNotDeletingReason = NotDeletingReason

	// ClusterDeletingWaitingForBeforeDeleteHookReason is used while a topology Cluster lacks the
	// runtime.cluster.x-k8s.io/ok-to-delete annotation: nothing is deleted until the topology
	// controller's BeforeClusterDelete call lets the deletion go on.
	ClusterDeletingWaitingForBeforeDeleteHookReason = "WaitingForBeforeDeleteHook"

	// ClusterDeletingWaitingForWorkersDeletionReason is used while worker Machines and their owners
	// (MachinePools, MachineDeployments, MachineSets) are being deleted.
	ClusterDeletingWaitingForWorkersDeletionReason = "WaitingForWorkersDeletion"

	// ClusterDeletingWaitingForControlPlaneDeletionReason is used while the control plane is being deleted.
	ClusterDeletingWaitingForControlPlaneDeletionReason = "WaitingForControlPlaneDeletion"

	// ClusterDeletingWaitingForInfrastructureDeletionReason is used while the InfraCluster is being deleted.
	ClusterDeletingWaitingForInfrastructureDeletionReason = "WaitingForInfrastructureDeletion"

	// ClusterDeletingDeletionCompletedReason is used right after the Cluster finalizer is removed.
	ClusterDeletingDeletionCompletedReason = DeletionCompletedReason

	// ClusterDeletingInternalErrorReason is used on unexpected errors during deletion.
	ClusterDeletingInternalErrorReason = InternalErrorReason
)

// ClusterSpec defines the desired state of Cluster.
//
// Once set, infrastructureRef and controlPlaneRef may point elsewhere but cannot be removed (as
// upstream's Cluster webhook): the Cluster would forget the provider objects it owns.
//
// A Cluster says how it is built: by references to provider objects, or by a topology from which
// the topology controller generates (and then references) them. Upstream accepts a Cluster with
// neither and leaves it Provisioning for ever; Capstan refuses it, with what to write instead.
// Whether a Cluster is a topology Cluster is fixed at creation, as upstream's webhook has it.
// +kubebuilder:validation:XValidation:rule="has(self.topology) || has(self.infrastructureRef) || has(self.controlPlaneRef)",message="spec says nothing that builds the cluster: set topology (e.g. topology: {classRef: {name: quick-start}, version: v1.37.2}) to build it from a ClusterClass, or infrastructureRef and controlPlaneRef to the provider objects that build it (e.g. infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerCluster, name: my-cluster})"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.topology) || has(self.topology)",message="spec.topology cannot be removed from an existing Cluster: its objects are owned by the topology; delete the Cluster instead",fieldPath=".topology"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.topology) || !has(self.topology)",message="spec.topology cannot be added to an existing Cluster: a Cluster built from references cannot be taken over by a ClusterClass; create a new Cluster with a topology",fieldPath=".topology"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.infrastructureRef) || has(self.infrastructureRef)",message="spec.infrastructureRef cannot be removed from an existing Cluster: it may point to another object, but removing it would orphan the cluster's infrastructure; delete the Cluster instead",fieldPath=".infrastructureRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.controlPlaneRef) || has(self.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed from an existing Cluster: it may point to another object, but removing it would orphan the control plane; delete the Cluster instead",fieldPath=".controlPlaneRef"
type ClusterSpec struct {
	// paused stops every controller from reconciling the Cluster and all objects that belong to it,
	// e.g. while the Cluster is being moved to another management cluster.
	// +optional
	Paused *bool `json:"paused,omitempty"`

	// clusterNetwork is the network configuration of the workload cluster: API server port, Service
	// and Pod ranges, Service DNS domain. Bootstrap and control plane providers read it.
	// +optional
	ClusterNetwork ClusterNetwork `json:"clusterNetwork,omitempty,omitzero"`

	// controlPlaneEndpoint is the address clients use to reach the workload cluster's API server.
	// It is usually filled in by the infrastructure or control plane provider, e.g. from a load balancer.
	// +optional
	ControlPlaneEndpoint APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// controlPlaneRef references the provider object that runs the control plane (e.g. a
	// KubeadmControlPlane). Without it, control plane Machines are managed directly.
	// +optional
	ControlPlaneRef ContractVersionedObjectReference `json:"controlPlaneRef,omitempty,omitzero"`

	// infrastructureRef references the provider object that provisions the cluster-wide infrastructure
	// (network, load balancer), e.g. a DevCluster.
	// +optional
	InfrastructureRef ContractVersionedObjectReference `json:"infrastructureRef,omitempty,omitzero"`

	// topology builds the Cluster from a ClusterClass: the topology controller generates the
	// InfraCluster, control plane and workers from the class's templates and this topology.
	// +optional
	Topology Topology `json:"topology,omitempty,omitzero"`

	// availabilityGates lists extra conditions, possibly owned by third-party controllers, that must be
	// true (or false, for negative polarity) for the Cluster's Available condition to be true. On a
	// topology Cluster they replace the ClusterClass's.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	AvailabilityGates []ClusterAvailabilityGate `json:"availabilityGates,omitempty"`
}

// ClusterAvailabilityGate names a Cluster condition that gates the Cluster's availability.
type ClusterAvailabilityGate struct {
	// conditionType is the type of a condition in the Cluster's status.conditions. A missing condition
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

// ClusterNetwork is the network configuration of a workload cluster.
// +kubebuilder:validation:XValidation:rule="has(self.apiServerPort) || has(self.services) || has(self.pods) || has(self.serviceDomain)",message="is empty: set at least one of apiServerPort, services, pods or serviceDomain, or leave it out"
type ClusterNetwork struct {
	// apiServerPort is upstream's port for the API server on control plane nodes. Capstan accepts it
	// but does not use it: the API server listens on 6443 unless the KubeadmConfig's
	// localAPIEndpoint.bindPort says otherwise.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	APIServerPort int32 `json:"apiServerPort,omitempty"`

	// services are the ranges Service cluster IPs are allocated from.
	// +optional
	Services NetworkRanges `json:"services,omitempty,omitzero"`

	// pods are the ranges Pod IPs are allocated from.
	// +optional
	Pods NetworkRanges `json:"pods,omitempty,omitzero"`

	// serviceDomain is the DNS domain of Services, e.g. cluster.local.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ServiceDomain string `json:"serviceDomain,omitempty"`
}

// NetworkRanges is a set of address ranges.
type NetworkRanges struct {
	// cidrBlocks are the ranges in CIDR notation, e.g. 10.96.0.0/12 or fd00::/108.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(c, isCIDR(c))",messageExpression="'cidrBlocks entry \"' + self.filter(c, !isCIDR(c))[0] + '\" is not a CIDR: write an address range like 10.244.0.0/16 or fd00:10:244::/56'"
	CIDRBlocks []string `json:"cidrBlocks,omitempty"`
}

// APIEndpoint is a reachable Kubernetes API endpoint.
// +kubebuilder:validation:XValidation:rule="has(self.host) || has(self.port)",message="is empty: set at least one of host or port, or leave it out"
type APIEndpoint struct {
	// host is the DNS name or IP address the API server is served on.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Host string `json:"host,omitempty"`

	// port is the TCP port the API server is served on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// IsZero reports whether neither host nor port is set; omitzero uses it.
func (v APIEndpoint) IsZero() bool {
	return v.Host == "" && v.Port == 0
}

// IsValid reports whether both host and port are set, i.e. the endpoint can be dialled.
func (v APIEndpoint) IsValid() bool {
	return v.Host != "" && v.Port != 0
}

// String returns the endpoint as host:port.
func (v APIEndpoint) String() string {
	return net.JoinHostPort(v.Host, fmt.Sprint(v.Port))
}

// ClusterStatus defines the observed state of Cluster.
// +kubebuilder:validation:MinProperties=1
type ClusterStatus struct {
	// conditions are the observations of the Cluster's state. Known types: Available,
	// InfrastructureReady, ControlPlaneInitialized, ControlPlaneAvailable, WorkersAvailable,
	// RemoteConnectionProbe, Deleting, Paused, and TopologyReconciled on a topology Cluster.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the Cluster's first provisioning.
	// These fields are part of the provider contract and gate provisioning of other objects.
	// +optional
	Initialization ClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// controlPlane counts the Cluster's control plane Machines.
	// +optional
	ControlPlane *ClusterControlPlaneStatus `json:"controlPlane,omitempty"`

	// workers counts the Cluster's worker Machines.
	// +optional
	Workers *WorkersStatus `json:"workers,omitempty"`

	// failureDomains are the failure domains the infrastructure provider offers, copied from the
	// InfraCluster; Machine placement spreads across them.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []FailureDomain `json:"failureDomains,omitempty"`

	// phase is a human-oriented summary of the Cluster's lifecycle; do not build logic on it.
	// +optional
	// +kubebuilder:validation:Enum=Pending;Provisioning;Provisioned;Deleting;Failed;Unknown
	Phase string `json:"phase,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ClusterInitializationStatus records the one-way milestones of a Cluster's first provisioning.
// +kubebuilder:validation:MinProperties=1
type ClusterInitializationStatus struct {
	// infrastructureProvisioned becomes true when the InfraCluster reports
	// status.initialization.provisioned; it never goes back to false.
	// +optional
	InfrastructureProvisioned *bool `json:"infrastructureProvisioned,omitempty"`

	// controlPlaneInitialized becomes true when the control plane can accept requests (the control
	// plane provider reports status.initialization.controlPlaneInitialized, or, without a controlPlaneRef,
	// the first control plane Machine has a Node); it never goes back to false.
	// +optional
	ControlPlaneInitialized *bool `json:"controlPlaneInitialized,omitempty"`
}

// ClusterControlPlaneStatus counts a Cluster's control plane Machines.
type ClusterControlPlaneStatus struct {
	// desiredReplicas is the number of control plane Machines wanted.
	// +optional
	DesiredReplicas *int32 `json:"desiredReplicas,omitempty"`

	// replicas is the number of control plane Machines, including those being provisioned or deleted.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// upToDateReplicas is the number of control plane Machines whose UpToDate condition is true.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// readyReplicas is the number of control plane Machines whose Ready condition is true.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of control plane Machines whose Available condition is true.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`
	// upgradePlan lists, for a Cluster with a topology whose version is changing, the versions
	// the control plane still has to run, in order, the target last (several when the
	// ClusterClass's kubernetesVersions chain minor versions). Set by the topology controller.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	UpgradePlan []string `json:"upgradePlan,omitempty"`
}

// WorkersStatus counts a Cluster's worker Machines.
type WorkersStatus struct {
	// desiredReplicas is the number of worker Machines wanted.
	// +optional
	DesiredReplicas *int32 `json:"desiredReplicas,omitempty"`

	// replicas is the number of worker Machines, including those being provisioned or deleted.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// upToDateReplicas is the number of worker Machines whose UpToDate condition is true.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// readyReplicas is the number of worker Machines whose Ready condition is true.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of worker Machines whose Available condition is true.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`
	// upgradePlan lists, for a Cluster with a topology whose version is changing, the versions
	// the workers furthest behind still has to run, in order, the target last (several when the
	// ClusterClass's kubernetesVersions chain minor versions). Set by the topology controller.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	UpgradePlan []string `json:"upgradePlan,omitempty"`
}

// FailureDomain is a failure domain (zone, rack, host group) that the infrastructure offers.
type FailureDomain struct {
	// name of the failure domain; Machine.spec.failureDomain refers to it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// controlPlane says whether control plane Machines may be placed in this failure domain.
	// +optional
	ControlPlane *bool `json:"controlPlane,omitempty"`

	// attributes are free-form provider-specific properties of the failure domain.
	// +optional
	Attributes map[string]string `json:"attributes,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusters,shortName=cl,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Available",type="string",JSONPath=`.status.conditions[?(@.type=="Available")].status`,description="Whether the Cluster passes all availability checks"
// +kubebuilder:printcolumn:name="CP Desired",type=integer,JSONPath=".status.controlPlane.desiredReplicas",description="Desired number of control plane Machines"
// +kubebuilder:printcolumn:name="CP Available",type=integer,JSONPath=".status.controlPlane.availableReplicas",description="Control plane Machines with Available condition true"
// +kubebuilder:printcolumn:name="W Desired",type=integer,JSONPath=".status.workers.desiredReplicas",description="Desired number of worker Machines"
// +kubebuilder:printcolumn:name="W Available",type=integer,JSONPath=".status.workers.availableReplicas",description="Worker Machines with Available condition true"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",description="Cluster phase: Pending, Provisioning, Provisioned or Deleting"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the Cluster was created"

// Cluster is a Kubernetes cluster whose infrastructure, control plane and workers Cluster API manages.
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="metadata.name is longer than 63 characters: a Cluster's name becomes the value of the cluster.x-k8s.io/cluster-name label on every object of the Cluster, and label values are at most 63 characters; choose a shorter name"
type Cluster struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the Cluster.
	// +required
	Spec ClusterSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the Cluster.
	// +optional
	Status ClusterStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the Cluster's conditions, for shared condition helpers.
func (c *Cluster) GetConditions() []metav1.Condition {
	return c.Status.Conditions
}

// SetConditions replaces the Cluster's conditions, for shared condition helpers.
func (c *Cluster) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// ClusterList is a list of Clusters.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Clusters.
	Items []Cluster `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &Cluster{}, &ClusterList{})
}
