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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DefaultNodeStartupTimeoutSeconds is how long a Machine may go without a Node before a
// MachineHealthCheck finds it unhealthy, when checks.nodeStartupTimeoutSeconds is not set. Ten minutes
// lets most providers boot an instance and join it to the cluster. The CRD applies the same default.
const DefaultNodeStartupTimeoutSeconds = int32(600)

// MachineHealthCheck's RemediationAllowed condition and reasons.
const (
	// MachineHealthCheckRemediationAllowedCondition says whether the MachineHealthCheck may remediate
	// more Machines or is blocked by remediation.triggerIf.
	MachineHealthCheckRemediationAllowedCondition = "RemediationAllowed"

	// MachineHealthCheckTooManyUnhealthyReason is used when too many Machines are unhealthy for
	// remediation to go on (remediation.triggerIf is not satisfied).
	MachineHealthCheckTooManyUnhealthyReason = "TooManyUnhealthy"

	// MachineHealthCheckRemediationAllowedReason is used when remediation may go on.
	MachineHealthCheckRemediationAllowedReason = "RemediationAllowed"
)

// MachineHealthCheckSpec defines the desired state of MachineHealthCheck.
//
// The cluster-name rule compares with `in {x: true}` rather than ==: matchLabels values of a
// metav1.LabelSelector carry no maxLength, and the apiserver estimates == by the longest possible
// string, while a map lookup is estimated at constant cost.
// +kubebuilder:validation:XValidation:rule="has(self.selector) && ((has(self.selector.matchLabels) && size(self.selector.matchLabels) > 0) || (has(self.selector.matchExpressions) && size(self.selector.matchExpressions) > 0))",message="spec.selector is empty: it would select every Machine of the Cluster, the control plane included; select the Machines to check, e.g. matchLabels: {cluster.x-k8s.io/deployment-name: md-0}",fieldPath=".selector"
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchLabels) || !('cluster.x-k8s.io/cluster-name' in self.selector.matchLabels) || self.selector.matchLabels['cluster.x-k8s.io/cluster-name'] in {self.clusterName: true}",messageExpression="'spec.selector.matchLabels[\"cluster.x-k8s.io/cluster-name\"] names another Cluster than spec.clusterName \"' + self.clusterName + '\": a MachineHealthCheck checks Machines of its own Cluster only; remove that label from the selector or set it to \"' + self.clusterName + '\"'",fieldPath=".selector.matchLabels"
type MachineHealthCheckSpec struct {
	// clusterName is the name of the Cluster whose Machines this MachineHealthCheck watches, in the same
	// namespace. It cannot be changed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'clusterName is immutable (it was \"' + oldSelf + '\"): a MachineHealthCheck cannot move to another Cluster; create a new MachineHealthCheck for the target Cluster instead'"
	ClusterName string `json:"clusterName,omitempty"`

	// selector selects the Machines (of the Cluster) whose health is checked.
	// +required
	Selector metav1.LabelSelector `json:"selector,omitempty,omitzero"`

	// checks decide when a Machine is unhealthy. Independently of them, Machines carrying the
	// cluster.x-k8s.io/remediate-machine annotation and Machines whose Node was deleted are unhealthy.
	// When omitted, only the node startup check (10 minutes) applies.
	// +optional
	// +kubebuilder:default={nodeStartupTimeoutSeconds: 600}
	Checks MachineHealthCheckChecks `json:"checks,omitempty,omitzero"`

	// remediation configures whether and how unhealthy Machines are remediated. When omitted, every
	// unhealthy Machine is remediated by its owner (MachineSet or control plane).
	// +optional
	Remediation MachineHealthCheckRemediation `json:"remediation,omitempty,omitzero"`
}

// MachineHealthCheckChecks decide when a Machine is unhealthy.
// +kubebuilder:validation:XValidation:rule="has(self.nodeStartupTimeoutSeconds) || has(self.unhealthyNodeConditions) || has(self.unhealthyMachineConditions)",message="is empty: set at least one of nodeStartupTimeoutSeconds, unhealthyNodeConditions or unhealthyMachineConditions, or leave it out"
type MachineHealthCheckChecks struct {
	// nodeStartupTimeoutSeconds is how long a Machine may go without a Node (matched through
	// spec.providerID) before it is unhealthy. The time counts from the latest of: Cluster
	// infrastructure ready, control plane initialized, Machine infrastructure ready, Machine creation.
	// Defaults to 600 (10 minutes); 0 disables the check.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == 0 || self >= 30",message="nodeStartupTimeoutSeconds must be 0 (no node startup check) or at least 30: a shorter timeout remediates Machines before their Node can register"
	NodeStartupTimeoutSeconds *int32 `json:"nodeStartupTimeoutSeconds,omitempty"`

	// unhealthyNodeConditions make a Machine unhealthy when its Node has had any of these condition
	// statuses for longer than the timeout (the conditions are ORed).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	UnhealthyNodeConditions []UnhealthyNodeCondition `json:"unhealthyNodeConditions,omitempty"`

	// unhealthyMachineConditions make a Machine unhealthy when it has had any of these condition
	// statuses for longer than the timeout (the conditions are ORed).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	UnhealthyMachineConditions []UnhealthyMachineCondition `json:"unhealthyMachineConditions,omitempty"`
}

// MachineHealthCheckRemediation configures whether and how unhealthy Machines are remediated.
// +kubebuilder:validation:XValidation:rule="has(self.triggerIf) || has(self.templateRef)",message="is empty: set at least one of triggerIf or templateRef, or leave it out"
type MachineHealthCheckRemediation struct {
	// triggerIf limits when remediation happens; without it, remediation always happens. It guards
	// against remediating a whole cluster during an outage that makes every Machine look unhealthy.
	// +optional
	TriggerIf MachineHealthCheckRemediationTriggerIf `json:"triggerIf,omitempty,omitzero"`

	// templateRef references a remediation template of an external remediation controller. When set,
	// the MachineHealthCheck creates a remediation request from it for each unhealthy Machine instead
	// of asking the Machine's owner to replace it.
	// +optional
	TemplateRef MachineHealthCheckRemediationTemplateReference `json:"templateRef,omitempty,omitzero"`
}

// MachineHealthCheckRemediationTriggerIf limits when remediation happens.
// +kubebuilder:validation:XValidation:rule="has(self.unhealthyLessThanOrEqualTo) || has(self.unhealthyInRange)",message="is empty: set at least one of unhealthyLessThanOrEqualTo or unhealthyInRange, or leave it out"
type MachineHealthCheckRemediationTriggerIf struct {
	// unhealthyLessThanOrEqualTo allows remediation only while the number of unhealthy Machines is at
	// most this value: a number of Machines (e.g. 2) or a percentage of the checked Machines (e.g. 40%).
	// unhealthyInRange takes precedence when both are set.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^(100|[1-9]?[0-9])%$')",message="unhealthyLessThanOrEqualTo must be a non-negative number of Machines (e.g. 2) or a percentage from 0% to 100% (e.g. 40%)"
	UnhealthyLessThanOrEqualTo *intstr.IntOrString `json:"unhealthyLessThanOrEqualTo,omitempty"`

	// unhealthyInRange allows remediation only while the number of unhealthy Machines is within
	// "[min-max]", bounds included: "[3-5]" remediates when 3, 4 or 5 Machines are unhealthy.
	// Takes precedence over unhealthyLessThanOrEqualTo.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^[[][0-9]{1,9}-[0-9]{1,9}[]]$')",messageExpression="'unhealthyInRange \"' + self + '\" is not a range: write it as \"[min-max]\" with whole numbers of at most 9 digits, e.g. \"[3-5]\"'"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[[][0-9]{1,9}-[0-9]{1,9}[]]$') || int(self.substring(1, self.indexOf('-'))) <= int(self.substring(self.indexOf('-') + 1, self.size() - 1))",messageExpression="'unhealthyInRange \"' + self + '\" has its minimum above its maximum: write the smaller number first, e.g. \"[3-5]\"'"
	UnhealthyInRange string `json:"unhealthyInRange,omitempty"`
}

// MachineHealthCheckRemediationTemplateReference references a remediation template of an external
// remediation controller, in the MachineHealthCheck's namespace.
type MachineHealthCheckRemediationTemplateReference struct {
	// kind of the remediation template. It must start with a letter and contain only letters, digits and '-'.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind,omitempty"`

	// name of the remediation template, a DNS subdomain.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`

	// apiVersion of the remediation template, group/version (e.g. remediation.cluster.x-k8s.io/v1beta1).
	// Unlike provider references it carries a version, because remediation templates follow no contract.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[a-z]([-a-z0-9]*[a-z0-9])?$`
	APIVersion string `json:"apiVersion,omitempty"`
}

// IsDefined reports whether any field of the reference is set.
func (r *MachineHealthCheckRemediationTemplateReference) IsDefined() bool {
	return r != nil && (r.Kind != "" || r.Name != "" || r.APIVersion != "")
}

// UnhealthyNodeCondition makes a Machine unhealthy when its Node has had a condition in the given
// status for at least timeoutSeconds.
type UnhealthyNodeCondition struct {
	// type of the Node condition, e.g. Ready.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Type corev1.NodeConditionType `json:"type,omitempty"`

	// status of the condition that counts as unhealthy: True, False or Unknown.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status corev1.ConditionStatus `json:"status,omitempty"`

	// timeoutSeconds is how long the condition must have had that status; e.g. 300 for 5 minutes.
	// +required
	// +kubebuilder:validation:Minimum=0
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// UnhealthyMachineCondition makes a Machine unhealthy when it has had a condition in the given status
// for at least timeoutSeconds.
type UnhealthyMachineCondition struct {
	// type of the Machine condition. It cannot be one of the conditions the health check itself derives
	// (Ready, Available, HealthCheckSucceeded, OwnerRemediated, ExternallyRemediated), which would loop.
	// +required
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="!(self in ['Ready','Available','HealthCheckSucceeded','OwnerRemediated','ExternallyRemediated'])",message="type must not be Ready, Available, HealthCheckSucceeded, OwnerRemediated or ExternallyRemediated: those conditions depend on the health check itself"
	Type string `json:"type,omitempty"`

	// status of the condition that counts as unhealthy: True, False or Unknown.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status metav1.ConditionStatus `json:"status,omitempty"`

	// timeoutSeconds is how long the condition must have had that status; e.g. 300 for 5 minutes.
	// +required
	// +kubebuilder:validation:Minimum=0
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// MachineHealthCheckStatus defines the observed state of MachineHealthCheck.
// +kubebuilder:validation:MinProperties=1
type MachineHealthCheckStatus struct {
	// conditions are the observations of the MachineHealthCheck's state. Known types:
	// RemediationAllowed, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// expectedMachines is the number of Machines the MachineHealthCheck checks.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ExpectedMachines *int32 `json:"expectedMachines,omitempty"`

	// currentHealthy is the number of checked Machines found healthy.
	// +optional
	// +kubebuilder:validation:Minimum=0
	CurrentHealthy *int32 `json:"currentHealthy,omitempty"`

	// remediationsAllowed is how many more Machines may be remediated before remediation.triggerIf
	// stops remediation.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RemediationsAllowed *int32 `json:"remediationsAllowed,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// targets are the names of the checked Machines, sorted so that the status does not change
	// from one reconcile to the next when the set of Machines does not.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	Targets []string `json:"targets,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinehealthchecks,shortName=mhc;mhcs,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".spec.clusterName",description="Cluster the MachineHealthCheck belongs to"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.expectedMachines",description="Number of checked Machines"
// +kubebuilder:printcolumn:name="Healthy",type="integer",JSONPath=".status.currentHealthy",description="Number of checked Machines found healthy"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the MachineHealthCheck was created"

// MachineHealthCheck finds unhealthy Machines of a Cluster and has them remediated.
type MachineHealthCheck struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MachineHealthCheck.
	// +required
	Spec MachineHealthCheckSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the MachineHealthCheck.
	// +optional
	Status MachineHealthCheckStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the MachineHealthCheck's conditions, for shared condition helpers.
func (m *MachineHealthCheck) GetConditions() []metav1.Condition {
	return m.Status.Conditions
}

// SetConditions replaces the MachineHealthCheck's conditions, for shared condition helpers.
func (m *MachineHealthCheck) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// MachineHealthCheckList is a list of MachineHealthChecks.
type MachineHealthCheckList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the MachineHealthChecks.
	Items []MachineHealthCheck `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineHealthCheck{}, &MachineHealthCheckList{})
}
