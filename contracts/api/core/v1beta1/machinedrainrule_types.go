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

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// MachineDrainRuleSpec is upstream's v1beta1 MachineDrainRuleSpec (the same rules as v1beta2;
// the selectors are metav1 label selectors).
type MachineDrainRuleSpec struct {
	// drain configures if and how Pods are drained.
	// +required
	Drain MachineDrainRuleDrainConfig `json:"drain"`

	// machines defines to which Machines this MachineDrainRule should be applied; the entries
	// are ORed. When omitted, the rule applies to every Machine of the namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x == y))",message="entries in machines must be unique: remove the repeated entry"
	Machines []MachineDrainRuleMachineSelector `json:"machines,omitempty"`

	// pods defines to which Pods this MachineDrainRule should be applied; the entries are ORed.
	// When omitted, the rule applies to every Pod.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x == y))",message="entries in pods must be unique: remove the repeated entry"
	Pods []MachineDrainRulePodSelector `json:"pods,omitempty"`
}

// MachineDrainRuleDrainConfig configures if and how Pods are drained.
// +kubebuilder:validation:XValidation:rule="!has(self.order) || self.behavior == 'Drain'",message="order must not be set if drain behavior is \"Skip\" or \"WaitCompleted\": remove order, or set behavior to Drain",fieldPath=".order"
type MachineDrainRuleDrainConfig struct {
	// behavior defines the drain behavior: Drain, Skip or WaitCompleted.
	// +required
	Behavior clusterv1.MachineDrainRuleDrainBehavior `json:"behavior"`

	// order defines the order in which Pods are drained; only with behavior Drain.
	// +optional
	Order *int32 `json:"order,omitempty"`
}

// MachineDrainRuleMachineSelector selects Machines by their labels and their Cluster's labels.
// +kubebuilder:validation:MinProperties=1
type MachineDrainRuleMachineSelector struct {
	// selector is a label selector which selects Machines by their labels.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// clusterSelector is a label selector which selects Machines by the labels of their Clusters.
	// +optional
	ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`
}

// MachineDrainRulePodSelector selects Pods by their labels and their Namespace's labels.
// +kubebuilder:validation:MinProperties=1
type MachineDrainRulePodSelector struct {
	// selector is a label selector which selects Pods by their labels.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// namespaceSelector is a label selector which selects Pods by the labels of their Namespaces.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinedrainrules,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="cluster.x-k8s.io/v1beta1 MachineDrainRule is deprecated; use cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Behavior",type="string",JSONPath=".spec.drain.behavior",description="Drain behavior"
// +kubebuilder:printcolumn:name="Order",type="string",JSONPath=".spec.drain.order",description="Drain order"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"

// MachineDrainRule is the Schema for the MachineDrainRule API at v1beta1.
type MachineDrainRule struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec defines the spec of a MachineDrainRule.
	// +required
	Spec MachineDrainRuleSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// MachineDrainRuleList contains a list of MachineDrainRules.
type MachineDrainRuleList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items is the list of MachineDrainRules.
	Items []MachineDrainRule `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineDrainRule{}, &MachineDrainRuleList{})
}
