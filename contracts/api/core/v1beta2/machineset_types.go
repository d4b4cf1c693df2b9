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
)

const (
	// MachineSetFinalizer is added by the MachineSet controller so that it can delete its Machines
	// before the MachineSet goes away.
	MachineSetFinalizer = "cluster.x-k8s.io/machineset"
)

// MachineSetSkipPreflightChecksAnnotation, on a MachineSet or its MachineDeployment, lists (comma
// separated) the preflight checks not to run before the MachineSet creates or remediates Machines;
// "All" skips every check.
const MachineSetSkipPreflightChecksAnnotation = "machineset.cluster.x-k8s.io/skip-preflight-checks"

// MachineSetPreflightCheck names a check a MachineSet runs against its Cluster's control plane
// before it creates or remediates Machines (only when the Cluster has a controlPlaneRef and the
// control plane reports spec.version).
type MachineSetPreflightCheck string

const (
	// MachineSetPreflightCheckAll stands for every preflight check.
	MachineSetPreflightCheckAll MachineSetPreflightCheck = "All"

	// MachineSetPreflightCheckKubeadmVersionSkew: with a KubeadmConfigTemplate, the Machine's
	// minor version equals the control plane's (kubeadm joins only at the same minor).
	MachineSetPreflightCheckKubeadmVersionSkew MachineSetPreflightCheck = "KubeadmVersionSkew"

	// MachineSetPreflightCheckKubernetesVersionSkew: the Machine's minor version is not newer than
	// the control plane's, nor more than 3 minors older (the kubelet skew policy).
	MachineSetPreflightCheckKubernetesVersionSkew MachineSetPreflightCheck = "KubernetesVersionSkew"

	// MachineSetPreflightCheckControlPlaneIsStable: the control plane is neither provisioning (no
	// status.version yet) nor upgrading (spec.version newer than status.version), and, for
	// Clusters with a managed topology, has no upgrade pending (spec.topology.version is its
	// spec.version).
	MachineSetPreflightCheckControlPlaneIsStable MachineSetPreflightCheck = "ControlPlaneIsStable"

	// MachineSetPreflightCheckControlPlaneVersionSkew: for Clusters with a managed topology, the
	// Machine's version equals the control plane's spec.version (a Machine of another version
	// would be replaced as soon as the topology moves its MachineSet).
	MachineSetPreflightCheckControlPlaneVersionSkew MachineSetPreflightCheck = "ControlPlaneVersionSkew"
)

// MachineSetPreflightChecks are the checks a MachineSet knows, "All" excluded.
var MachineSetPreflightChecks = []MachineSetPreflightCheck{
	MachineSetPreflightCheckControlPlaneIsStable, MachineSetPreflightCheckKubernetesVersionSkew,
	MachineSetPreflightCheckKubeadmVersionSkew, MachineSetPreflightCheckControlPlaneVersionSkew,
}

// MachineSet's ScalingUp and ScalingDown conditions and reasons.
const (
	// MachineSetScalingUpCondition is true while the MachineSet has fewer Machines than spec.replicas.
	MachineSetScalingUpCondition = ScalingUpCondition

	// MachineSetScalingUpReason is used while scaling up.
	MachineSetScalingUpReason = ScalingUpReason

	// MachineSetNotScalingUpReason is used when no scale up is needed.
	MachineSetNotScalingUpReason = NotScalingUpReason

	// MachineSetInvalidSelectorReason is used when spec.selector cannot be parsed or does not select
	// the Machines created from spec.template: no Machine is created.
	MachineSetInvalidSelectorReason = InvalidSelectorReason

	// MachineSetScalingDownCondition is true while the MachineSet has more Machines than spec.replicas.
	MachineSetScalingDownCondition = ScalingDownCondition

	// MachineSetScalingDownReason is used while scaling down.
	MachineSetScalingDownReason = ScalingDownReason

	// MachineSetNotScalingDownReason is used when no scale down is needed.
	MachineSetNotScalingDownReason = NotScalingDownReason
)

// MachineSet's MachinesReady, MachinesUpToDate, Remediating and Deleting conditions and reasons.
const (
	// MachineSetMachinesReadyCondition aggregates the Ready conditions of the MachineSet's Machines.
	MachineSetMachinesReadyCondition = MachinesReadyCondition

	// MachineSetMachinesUpToDateCondition aggregates the UpToDate conditions of the MachineSet's Machines.
	MachineSetMachinesUpToDateCondition = MachinesUpToDateCondition

	// MachineSetRemediatingCondition reports ongoing remediation of the MachineSet's Machines.
	MachineSetRemediatingCondition = RemediatingCondition

	// MachineSetMachineCannotBeRemediatedReason is set on a Machine's OwnerRemediated condition when the
	// MachineSet cannot remediate it.
	MachineSetMachineCannotBeRemediatedReason = "CannotBeRemediated"

	// MachineSetMachineRemediationDeferredReason is set on a Machine's OwnerRemediated condition when
	// remediation must wait (e.g. maxInFlight is reached).
	MachineSetMachineRemediationDeferredReason = "RemediationDeferred"

	// MachineSetMachineRemediationMachineDeletingReason is set on a Machine's OwnerRemediated condition
	// once the MachineSet deleted it; a replacement follows from the normal replica reconciliation.
	MachineSetMachineRemediationMachineDeletingReason = "MachineDeleting"

	// MachineSetDeletingCondition reports the progress of the MachineSet's deletion.
	MachineSetDeletingCondition = DeletingCondition
)

// MachineSetSpec defines the desired state of MachineSet.
//
// The matchLabels rule below compares label values as `selector[k] in {template[k]: true}` rather
// than with ==. Both mean the same; the form dates from when label values had no maxLength (the
// apiserver's static CEL cost estimate charges == by the declared maximum length of both strings),
// and a map lookup is still estimated at constant cost. The selector map itself is only walked with constant-cost
// steps; the values are compared while walking the template labels, which are capped at 64.
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchLabels) || self.selector.matchLabels.size() == 0 || (has(self.template.metadata) && has(self.template.metadata.labels) && self.selector.matchLabels.all(k, k in self.template.metadata.labels) && self.template.metadata.labels.all(k, !(k in self.selector.matchLabels) || self.selector.matchLabels[k] in {self.template.metadata.labels[k]: true}))",messageExpression="'spec.selector.matchLabels[\"' + ((has(self.template.metadata) && has(self.template.metadata.labels)) ? self.selector.matchLabels.filter(k, !(k in self.template.metadata.labels)) + self.template.metadata.labels.filter(k, k in self.selector.matchLabels && !(self.selector.matchLabels[k] in {self.template.metadata.labels[k]: true})) : self.selector.matchLabels.filter(k, true))[0] + '\"] does not match spec.template.metadata.labels: a MachineSet template must carry every label of its selector, with the same value'"
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'Exists' ? (has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) : e.operator == 'DoesNotExist' ? !(has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) : e.operator == 'In' ? ((has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) && (has(e.values) && self.template.metadata.labels[e.key] in e.values)) : !((has(self.template.metadata) && has(self.template.metadata.labels) && e.key in self.template.metadata.labels) && (has(e.values) && self.template.metadata.labels[e.key] in e.values)))",message="spec.selector.matchExpressions must all be satisfied by spec.template.metadata.labels, or the MachineSet would not count the Machines it creates and would create more without end: for In the template needs the key with one of the values, for NotIn it must lack the key or have another value, for Exists it needs the key, for DoesNotExist it must lack it",fieldPath=".selector.matchExpressions"
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec) || !has(self.template.spec.clusterName) || self.template.spec.clusterName == self.clusterName",messageExpression="'spec.template.spec.clusterName \"' + self.template.spec.clusterName + '\" differs from spec.clusterName \"' + self.clusterName + '\": the Machines of a MachineSet belong to the same Cluster as the MachineSet; set both to the same name'"
type MachineSetSpec struct {
	// clusterName is the name of the Cluster this MachineSet belongs to, in the same namespace.
	// It cannot be changed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'clusterName is immutable (it was \"' + oldSelf + '\"): a MachineSet cannot move to another Cluster; create a new MachineSet in the target Cluster instead'"
	ClusterName string `json:"clusterName,omitempty"`

	// replicas is the number of Machines wanted. When unset it is defaulted at admission, as upstream:
	// to the cluster-autoscaler's min-size annotation when its min/max size annotations are set, else 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// selector selects the Machines this MachineSet counts as its own. Every matchLabels entry must also
	// be in spec.template.metadata.labels, otherwise new Machines would not be counted and the
	// MachineSet would create Machines forever.
	// +required
	Selector LabelSelector `json:"selector,omitempty,omitzero"`

	// template describes the Machines to create when there are fewer than spec.replicas.
	// +required
	Template MachineTemplateSpec `json:"template,omitempty,omitzero"`

	// machineNaming changes how the names of new Machines are generated.
	// +optional
	MachineNaming MachineNamingSpec `json:"machineNaming,omitempty,omitzero"`

	// deletion configures which Machines go first when scaling down.
	// +optional
	Deletion MachineSetDeletionSpec `json:"deletion,omitempty,omitzero"`
}

// MachineSetDeletionSpec configures which Machines go first when a MachineSet scales down.
// +kubebuilder:validation:XValidation:rule="has(self.order)",message="is empty: set order, or leave it out"
type MachineSetDeletionSpec struct {
	// order is the order in which Machines are deleted when scaling down: Random (the default),
	// Newest or Oldest. Machines marked with the cluster.x-k8s.io/delete-machine annotation and
	// unhealthy Machines always go first.
	// +optional
	Order MachineSetDeletionOrder `json:"order,omitempty"`
}

// MachineTemplateSpec is the template Machines are created from.
type MachineTemplateSpec struct {
	// metadata holds the labels and annotations to put on created Machines.
	// +optional
	ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of created Machines.
	// +required
	Spec MachineSpec `json:"spec,omitempty,omitzero"`
}

// MachineNamingSpec changes how the names of new Machines are generated. InfraMachines and
// BootstrapConfigs get the same name as their Machine.
// +kubebuilder:validation:XValidation:rule="has(self.template)",message="is empty: set template, or leave it out"
type MachineNamingSpec struct {
	// template is a Go template for Machine names. It may use {{ .cluster.name }},
	// {{ .machineSet.name }} and must use {{ .random }} (5 random consonants and digits) so that names
	// are unique. Names longer than 63 characters are cut to 58 and get a random 5-character suffix.
	// Defaults to "{{ .machineSet.name }}-{{ .random }}".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('[{][{] *[.]random *[}][}]')",message="template must contain {{ .random }}: without it two Machines could get the same name"
	Template string `json:"template,omitempty"`
}

// MachineSetDeletionOrder is the order in which a MachineSet deletes Machines when scaling down.
// +kubebuilder:validation:Enum=Random;Newest;Oldest
type MachineSetDeletionOrder string

const (
	// RandomMachineSetDeletionOrder deletes Machines marked for deletion and unhealthy Machines first,
	// then picks at random.
	RandomMachineSetDeletionOrder MachineSetDeletionOrder = "Random"

	// NewestMachineSetDeletionOrder deletes Machines marked for deletion and unhealthy Machines first,
	// then the most recently created.
	NewestMachineSetDeletionOrder MachineSetDeletionOrder = "Newest"

	// OldestMachineSetDeletionOrder deletes Machines marked for deletion and unhealthy Machines first,
	// then the least recently created.
	OldestMachineSetDeletionOrder MachineSetDeletionOrder = "Oldest"
)

// MachineSetStatus defines the observed state of MachineSet.
// +kubebuilder:validation:MinProperties=1
type MachineSetStatus struct {
	// conditions are the observations of the MachineSet's state. Known types: MachinesReady,
	// MachinesUpToDate, ScalingUp, ScalingDown, Remediating, Deleting, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// selector is spec.selector in label-query form (e.g. "app=web,tier in (a,b)"); the scale
	// subresource exposes it so that autoscalers can find the Machines.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Selector string `json:"selector,omitempty"`

	// replicas is the number of Machines the MachineSet currently has.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of the MachineSet's Machines whose Ready condition is true.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of the MachineSet's Machines whose Available condition is true.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// upToDateReplicas is the number of the MachineSet's Machines whose UpToDate condition is true.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinesets,shortName=ms,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster the MachineSet belongs to"
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=".spec.replicas",description="Desired number of Machines"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=".status.replicas",description="Current number of Machines"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyReplicas",description="Machines with Ready condition true"
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=".status.availableReplicas",description="Machines with Available condition true"
// +kubebuilder:printcolumn:name="Up-to-date",type=integer,JSONPath=".status.upToDateReplicas",description="Machines with UpToDate condition true"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the MachineSet was created"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.template.spec.version",description="Kubernetes version of the MachineSet's Machines"

// MachineSet keeps a number of identical Machines, created from a template, running.
type MachineSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MachineSet.
	// +required
	Spec MachineSetSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the MachineSet.
	// +optional
	Status MachineSetStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the MachineSet's conditions, for shared condition helpers.
func (m *MachineSet) GetConditions() []metav1.Condition {
	return m.Status.Conditions
}

// SetConditions replaces the MachineSet's conditions, for shared condition helpers.
func (m *MachineSet) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// MachineSetList is a list of MachineSets.
type MachineSetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the MachineSets.
	Items []MachineSet `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineSet{}, &MachineSetList{})
}
