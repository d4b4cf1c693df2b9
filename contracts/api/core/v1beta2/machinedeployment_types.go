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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	// MachineDeploymentFinalizer is added by the MachineDeployment controller so that it can delete its
	// MachineSets before the MachineDeployment goes away.
	MachineDeploymentFinalizer = "cluster.x-k8s.io/machinedeployment"

	// RevisionAnnotation records, on each MachineSet of a MachineDeployment, the rollout revision the
	// MachineSet belongs to.
	RevisionAnnotation = "machinedeployment.clusters.x-k8s.io/revision"

	// DesiredReplicasAnnotation records, on each MachineSet, the MachineDeployment's desired replicas, so
	// that scaling events can be told apart from rollouts.
	DesiredReplicasAnnotation = "machinedeployment.clusters.x-k8s.io/desired-replicas"

	// MaxReplicasAnnotation records, on each MachineSet, spec.replicas + maxSurge of its
	// MachineDeployment, the most Machines the rollout may have at once.
	MaxReplicasAnnotation = "machinedeployment.clusters.x-k8s.io/max-replicas"

	// MachineDeploymentUniqueLabel is set on a MachineSet created by a MachineDeployment, on its
	// selector and on its Machines, so that MachineSets of different revisions never select each
	// other's Machines. The value is a hash of the Machine template (ignoring fields changed in place)
	// plus a random suffix, and never changes during the MachineSet's life.
	MachineDeploymentUniqueLabel = "machine-template-hash"
)

// MachineDeploymentRolloutStrategyType is how a MachineDeployment replaces Machines.
// +kubebuilder:validation:Enum=RollingUpdate;OnDelete
type MachineDeploymentRolloutStrategyType string

const (
	// RollingUpdateMachineDeploymentStrategyType replaces Machines gradually, within maxSurge and
	// maxUnavailable.
	RollingUpdateMachineDeploymentStrategyType MachineDeploymentRolloutStrategyType = "RollingUpdate"

	// OnDeleteMachineDeploymentStrategyType replaces a Machine only after a user deletes it.
	OnDeleteMachineDeploymentStrategyType MachineDeploymentRolloutStrategyType = "OnDelete"
)

// MachineDeploymentPhase is a coarse, human-oriented summary of a MachineDeployment's state.
type MachineDeploymentPhase string

const (
	// MachineDeploymentPhaseScalingUp is set while the MachineDeployment scales up.
	MachineDeploymentPhaseScalingUp = MachineDeploymentPhase("ScalingUp")

	// MachineDeploymentPhaseScalingDown is set while the MachineDeployment scales down.
	MachineDeploymentPhaseScalingDown = MachineDeploymentPhase("ScalingDown")

	// MachineDeploymentPhaseRunning is set when all desired Machines run.
	MachineDeploymentPhaseRunning = MachineDeploymentPhase("Running")

	// MachineDeploymentPhaseFailed is kept for compatibility only: v1beta2 controllers never set it.
	MachineDeploymentPhaseFailed = MachineDeploymentPhase("Failed")

	// MachineDeploymentPhaseUnknown is returned when the phase cannot be determined.
	MachineDeploymentPhaseUnknown = MachineDeploymentPhase("Unknown")
)

// MachineDeployment's conditions and reasons.
const (
	// MachineDeploymentAvailableCondition is true when the MachineDeployment is not deleting and has at
	// least spec.replicas - maxUnavailable available Machines.
	MachineDeploymentAvailableCondition = AvailableCondition

	// MachineDeploymentAvailableReason is used when the MachineDeployment is available.
	MachineDeploymentAvailableReason = AvailableReason

	// MachineDeploymentNotAvailableReason is used when too few Machines are available.
	MachineDeploymentNotAvailableReason = NotAvailableReason

	// MachineDeploymentAvailableWaitingForReplicasSetReason is used while spec.replicas is unset.
	MachineDeploymentAvailableWaitingForReplicasSetReason = WaitingForReplicasSetReason

	// MachineDeploymentMachinesReadyCondition aggregates the Ready conditions of the MachineDeployment's Machines.
	MachineDeploymentMachinesReadyCondition = MachinesReadyCondition

	// MachineDeploymentMachinesUpToDateCondition aggregates the UpToDate conditions of the MachineDeployment's Machines.
	MachineDeploymentMachinesUpToDateCondition = MachinesUpToDateCondition

	// MachineDeploymentRollingOutCondition is true while at least one Machine is not up to date.
	MachineDeploymentRollingOutCondition = RollingOutCondition

	// MachineDeploymentScalingUpCondition is true while there are fewer Machines than spec.replicas.
	MachineDeploymentScalingUpCondition = ScalingUpCondition

	// MachineDeploymentInvalidSelectorReason is used on ScalingUp when spec.selector cannot be parsed or
	// does not select the MachineSets and Machines created from spec.template: nothing is created.
	MachineDeploymentInvalidSelectorReason = InvalidSelectorReason

	// MachineDeploymentScalingDownCondition is true while there are more Machines than spec.replicas.
	MachineDeploymentScalingDownCondition = ScalingDownCondition

	// MachineDeploymentRemediatingCondition reports ongoing remediation of the MachineDeployment's Machines.
	MachineDeploymentRemediatingCondition = RemediatingCondition

	// MachineDeploymentDeletingCondition reports the progress of the MachineDeployment's deletion.
	MachineDeploymentDeletingCondition = DeletingCondition
)

// MachineDeploymentSpec defines the desired state of MachineDeployment.
//
// The matchLabels rule below compares label values as `selector[k] in {template[k]: true}` rather
// than with ==. Both mean the same; the form dates from when label values had no maxLength (the
// apiserver's static CEL cost estimate charges == by the declared maximum length of both strings),
// and a map lookup is still estimated at constant cost. The selector map itself is only walked with constant-cost
// steps; the values are compared while walking the template labels, which are capped at 64.
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchLabels) || self.selector.matchLabels.size() == 0 || (has(self.template.metadata) && has(self.template.metadata.labels) && self.selector.matchLabels.all(k, k in self.template.metadata.labels) && self.template.metadata.labels.all(k, !(k in self.selector.matchLabels) || self.selector.matchLabels[k] in {self.template.metadata.labels[k]: true}))",messageExpression="'spec.selector.matchLabels[\"' + ((has(self.template.metadata) && has(self.template.metadata.labels)) ? self.selector.matchLabels.filter(k, !(k in self.template.metadata.labels)) + self.template.metadata.labels.filter(k, k in self.selector.matchLabels && !(self.selector.matchLabels[k] in {self.template.metadata.labels[k]: true})) : self.selector.matchLabels.filter(k, true))[0] + '\"] does not match spec.template.metadata.labels: a MachineDeployment template must carry every label of its selector, with the same value'"
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'Exists' ? (has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) : e.operator == 'DoesNotExist' ? !(has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) : e.operator == 'In' ? ((has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) && (has(e.values) && self.template.metadata.labels[e.key] in e.values)) : !((has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) && (has(e.values) && self.template.metadata.labels[e.key] in e.values)))",message="spec.selector.matchExpressions must all be satisfied by spec.template.metadata.labels, or the MachineDeployment would not count the Machines it creates and would create more without end: for In the template needs the key with one of the values, for NotIn it must lack the key or have another value, for Exists it needs the key, for DoesNotExist it must lack it",fieldPath=".selector.matchExpressions"
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec) || !has(self.template.spec.clusterName) || self.template.spec.clusterName == self.clusterName",messageExpression="'spec.template.spec.clusterName \"' + self.template.spec.clusterName + '\" differs from spec.clusterName \"' + self.clusterName + '\": the Machines of a MachineDeployment belong to the same Cluster as the MachineDeployment; set both to the same name'"
type MachineDeploymentSpec struct {
	// clusterName is the name of the Cluster this MachineDeployment belongs to, in the same namespace.
	// It cannot be changed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'clusterName is immutable (it was \"' + oldSelf + '\"): a MachineDeployment cannot move to another Cluster; create a new MachineDeployment in the target Cluster instead'"
	ClusterName string `json:"clusterName,omitempty"`

	// replicas is the number of Machines wanted. When unset it is defaulted at admission, as upstream:
	// to the cluster-autoscaler's min-size annotation when its min/max size annotations are set, else 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// rollout configures how Machines are replaced when the template changes or spec.rollout.after passes.
	// When omitted it defaults to a RollingUpdate with maxSurge 1 and maxUnavailable 0.
	// +optional
	// +kubebuilder:default={strategy: {type: "RollingUpdate", rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}}
	Rollout MachineDeploymentRolloutSpec `json:"rollout,omitempty,omitzero"`

	// selector selects the Machines this MachineDeployment counts as its own. Every matchLabels entry
	// must also be in spec.template.metadata.labels.
	// +required
	Selector LabelSelector `json:"selector,omitempty,omitzero"`

	// template describes the Machines to create.
	// +required
	Template MachineTemplateSpec `json:"template,omitempty,omitzero"`

	// machineNaming changes how the names of new Machines are generated.
	// +optional
	MachineNaming MachineNamingSpec `json:"machineNaming,omitempty,omitzero"`

	// remediation configures how unhealthy Machines are remediated.
	// +optional
	Remediation MachineDeploymentRemediationSpec `json:"remediation,omitempty,omitzero"`

	// deletion configures which Machines go first when scaling down.
	// +optional
	Deletion MachineDeploymentDeletionSpec `json:"deletion,omitempty,omitzero"`

	// paused stops the MachineDeployment from rolling out template changes while true; scaling still
	// happens.
	// +optional
	Paused *bool `json:"paused,omitempty"`
}

// MachineDeploymentRolloutSpec configures how a MachineDeployment replaces Machines.
// +kubebuilder:validation:XValidation:rule="has(self.after) || has(self.strategy)",message="is empty: set at least one of after or strategy, or leave it out"
type MachineDeploymentRolloutSpec struct {
	// after forces a rollout of all Machines created before this time, even if nothing else changed,
	// e.g. to renew certificates. RFC3339, e.g. "2026-03-09T09:00:00Z".
	// +optional
	After metav1.Time `json:"after,omitempty,omitzero"`

	// strategy is how Machines are replaced. Defaults to RollingUpdate with maxSurge 1 and maxUnavailable 0.
	// +optional
	// +kubebuilder:default={type: "RollingUpdate", rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
	Strategy MachineDeploymentRolloutStrategy `json:"strategy,omitempty,omitzero"`
}

// MachineDeploymentRolloutStrategy is how a MachineDeployment replaces Machines.
// +kubebuilder:validation:XValidation:rule="has(self.type) || has(self.rollingUpdate)",message="is empty: set at least one of type or rollingUpdate, or leave it out"
type MachineDeploymentRolloutStrategy struct {
	// type of rollout: RollingUpdate (the default) or OnDelete.
	// +required
	// +kubebuilder:default=RollingUpdate
	Type MachineDeploymentRolloutStrategyType `json:"type,omitempty"`

	// rollingUpdate bounds a RollingUpdate; ignored for OnDelete. Defaults to maxSurge 1 and
	// maxUnavailable 0: one new Machine is added before an old one is removed.
	// +optional
	// +kubebuilder:default={maxSurge: 1, maxUnavailable: 0}
	RollingUpdate MachineDeploymentRolloutStrategyRollingUpdate `json:"rollingUpdate,omitempty,omitzero"`
}

// MachineDeploymentRolloutStrategyRollingUpdate bounds a rolling update.
// +kubebuilder:validation:XValidation:rule="has(self.maxUnavailable) || has(self.maxSurge)",message="is empty: set at least one of maxUnavailable or maxSurge, or leave it out"
// +kubebuilder:validation:XValidation:rule="!(has(self.maxSurge) && has(self.maxUnavailable) && (type(self.maxSurge) == int ? self.maxSurge == 0 : self.maxSurge.matches('^0+%$')) && (type(self.maxUnavailable) == int ? self.maxUnavailable == 0 : self.maxUnavailable.matches('^0+%$')))",message="maxSurge and maxUnavailable cannot both be 0: the rollout could neither add a new Machine nor remove an old one; set maxSurge to at least 1 (the default) or maxUnavailable to at least 1"
type MachineDeploymentRolloutStrategyRollingUpdate struct {
	// maxUnavailable is how many Machines may be unavailable during the update, as a number (e.g. 1) or
	// a percentage of spec.replicas (e.g. 10%, rounded down). Defaults to 0. Cannot be 0 when maxSurge is 0.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]{1,9}%$')",message="maxUnavailable must be a non-negative number of Machines (e.g. 1) or a percentage of replicas (e.g. 10%)"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// maxSurge is how many Machines may exist above spec.replicas during the update, as a number (e.g. 1)
	// or a percentage of spec.replicas (e.g. 10%, rounded up). Defaults to 1. Cannot be 0 when
	// maxUnavailable is 0.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]{1,9}%$')",message="maxSurge must be a non-negative number of Machines (e.g. 1) or a percentage of replicas (e.g. 10%)"
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// MachineDeploymentRemediationSpec configures how unhealthy Machines are remediated.
// +kubebuilder:validation:XValidation:rule="has(self.maxInFlight)",message="is empty: set maxInFlight, or leave it out"
type MachineDeploymentRemediationSpec struct {
	// maxInFlight is how many Machines may be remediated (deleted and replaced) at the same time, as a
	// number or a percentage of spec.replicas. Only the MachineSet of the newest revision remediates.
	// When unset, all unhealthy Machines may be remediated at once.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^[0-9]{1,9}%$') && !self.matches('^0+%$')",message="maxInFlight must be a positive number of Machines (e.g. 1) or a positive percentage of replicas (e.g. 20%)"
	MaxInFlight *intstr.IntOrString `json:"maxInFlight,omitempty"`
}

// MachineDeploymentDeletionSpec configures which Machines go first when scaling down.
// +kubebuilder:validation:XValidation:rule="has(self.order)",message="is empty: set order, or leave it out"
type MachineDeploymentDeletionSpec struct {
	// order is the order in which Machines are deleted when scaling down: Random (the default),
	// Newest or Oldest. It is passed on to the MachineDeployment's MachineSets.
	// +optional
	Order MachineSetDeletionOrder `json:"order,omitempty"`
}

// MachineDeploymentStatus defines the observed state of MachineDeployment.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentStatus struct {
	// conditions are the observations of the MachineDeployment's state. Known types: Available,
	// RollingOut, ScalingUp, ScalingDown, Deleting, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// selector is spec.selector in label-query form; the scale subresource exposes it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Selector string `json:"selector,omitempty"`

	// replicas is the number of non-terminated Machines selected by this MachineDeployment.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of its Machines whose Ready condition is true.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of its Machines whose Available condition is true.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// upToDateReplicas is the number of its Machines whose UpToDate condition is true.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// phase is a human-oriented summary of the MachineDeployment's state; do not build logic on it.
	// +optional
	// +kubebuilder:validation:Enum=ScalingUp;ScalingDown;Running;Failed;Unknown
	Phase string `json:"phase,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinedeployments,shortName=md,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster the MachineDeployment belongs to"
// +kubebuilder:printcolumn:name="Available",type="string",JSONPath=`.status.conditions[?(@.type=="Available")].status`,description="Whether the MachineDeployment passes its availability checks"
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=".spec.replicas",description="Desired number of Machines"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=".status.replicas",description="Current number of Machines"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyReplicas",description="Machines with Ready condition true"
// +kubebuilder:printcolumn:name="Up-to-date",type=integer,JSONPath=".status.upToDateReplicas",description="Machines with UpToDate condition true"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",description="MachineDeployment phase: ScalingUp, ScalingDown, Running..."
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the MachineDeployment was created"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.template.spec.version",description="Kubernetes version of the MachineDeployment's Machines"

// MachineDeployment rolls out changes to a group of identical Machines through MachineSets, one per
// revision of the Machine template.
type MachineDeployment struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MachineDeployment.
	// +required
	Spec MachineDeploymentSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the MachineDeployment.
	// +optional
	Status MachineDeploymentStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the MachineDeployment's conditions, for shared condition helpers.
func (m *MachineDeployment) GetConditions() []metav1.Condition {
	return m.Status.Conditions
}

// SetConditions replaces the MachineDeployment's conditions, for shared condition helpers.
func (m *MachineDeployment) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// MachineDeploymentList is a list of MachineDeployments.
type MachineDeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the MachineDeployments.
	Items []MachineDeployment `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineDeployment{}, &MachineDeploymentList{})
}
