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

// PodDrainLabel, set on a Pod in a workload cluster, decides its drain whatever the
// MachineDrainRules say: "skip" (the Pod is not evicted and not waited for) or "wait-completed"
// (the Pod is not evicted, and the drain waits for it to go away), both case-insensitive, as upstream.
const PodDrainLabel = "cluster.x-k8s.io/drain"

// MachineDrainRuleDrainBehavior is what a drain does with the Pods a MachineDrainRule selects.
// +kubebuilder:validation:Enum=Drain;Skip;WaitCompleted
type MachineDrainRuleDrainBehavior string

const (
	// MachineDrainRuleDrainBehaviorDrain evicts the Pods, in the group of their order.
	MachineDrainRuleDrainBehaviorDrain MachineDrainRuleDrainBehavior = "Drain"
	// MachineDrainRuleDrainBehaviorSkip neither evicts the Pods nor waits for them.
	MachineDrainRuleDrainBehaviorSkip MachineDrainRuleDrainBehavior = "Skip"
	// MachineDrainRuleDrainBehaviorWaitCompleted does not evict the Pods, but the drain waits until they
	// are gone from the Node (in the group of order 0).
	MachineDrainRuleDrainBehaviorWaitCompleted MachineDrainRuleDrainBehavior = "WaitCompleted"
)

// MachineDrainRuleSpec says how the drain of the selected Machines treats the selected Pods.
type MachineDrainRuleSpec struct {
	// drain says if and in which order the selected Pods are evicted.
	// +required
	Drain MachineDrainRuleDrainConfig `json:"drain,omitempty,omitzero"`

	// machines selects the Machines (of this namespace) whose drain the rule applies to; the entries
	// are ORed, and within one entry selector and clusterSelector are ANDed. When omitted, the rule
	// applies to every Machine of the namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x == y))",message="entries in machines must be unique: remove the repeated entry"
	Machines []MachineDrainRuleMachineSelector `json:"machines,omitempty"`

	// pods selects the Pods (of the workload cluster) the rule applies to; the entries are ORed, and
	// within one entry selector and namespaceSelector are ANDed. When omitted, the rule applies to
	// every Pod.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x == y))",message="entries in pods must be unique: remove the repeated entry"
	Pods []MachineDrainRulePodSelector `json:"pods,omitempty"`
}

// MachineDrainRuleDrainConfig says if and in which order Pods are evicted.
// +kubebuilder:validation:XValidation:rule="!has(self.order) || self.behavior == 'Drain'",message="order must not be set if drain behavior is \"Skip\" or \"WaitCompleted\": remove order, or set behavior to Drain",fieldPath=".order"
type MachineDrainRuleDrainConfig struct {
	// behavior is Drain (evict the Pods, group by group in increasing order), Skip (neither evict
	// nor wait for them) or WaitCompleted (do not evict them, but wait until they are gone; always
	// in the group of order 0).
	// +required
	Behavior MachineDrainRuleDrainBehavior `json:"behavior,omitempty"`

	// order groups the Pods of behavior Drain: the drain evicts the group of the lowest order first
	// and waits until all its Pods are gone before it evicts the next. Only with behavior Drain;
	// 0 when not set.
	// +optional
	Order *int32 `json:"order,omitempty"`
}

// MachineDrainRuleMachineSelector selects Machines by their labels and by their Cluster's labels.
// +kubebuilder:validation:MinProperties=1
type MachineDrainRuleMachineSelector struct {
	// selector selects Machines by their labels; empty or omitted selects every Machine.
	// +optional
	Selector *LabelSelector `json:"selector,omitempty"`

	// clusterSelector selects Machines by the labels of their Cluster; empty or omitted selects the
	// Machines of every Cluster.
	// +optional
	ClusterSelector *LabelSelector `json:"clusterSelector,omitempty"`
}

// MachineDrainRulePodSelector selects Pods by their labels and by their Namespace's labels.
// +kubebuilder:validation:MinProperties=1
type MachineDrainRulePodSelector struct {
	// selector selects Pods by their labels; empty or omitted selects every Pod.
	// +optional
	Selector *LabelSelector `json:"selector,omitempty"`

	// namespaceSelector selects Pods by the labels of their Namespace; empty or omitted selects the
	// Pods of every Namespace.
	// +optional
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=machinedrainrules,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Behavior",type="string",JSONPath=".spec.drain.behavior",description="Drain behavior"
// +kubebuilder:printcolumn:name="Order",type="string",JSONPath=".spec.drain.order",description="Drain order"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"

// MachineDrainRule says how the drain of Machines treats Pods: skip them, wait for them without
// evicting them, or evict them in ordered groups. The Machine controller reads the rules of the
// Machine's namespace when it drains a Node; among the rules that select both the Machine and a Pod,
// the first by name decides, and the Pod's cluster.x-k8s.io/drain label overrides them all.
type MachineDrainRule struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which Machines and Pods the rule selects and what the drain does with those Pods.
	// +required
	Spec MachineDrainRuleSpec `json:"spec,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// MachineDrainRuleList is a list of MachineDrainRules.
type MachineDrainRuleList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the MachineDrainRules.
	Items []MachineDrainRule `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MachineDrainRule{}, &MachineDrainRuleList{})
}
