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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConditionSeverity expresses the severity of a v1beta1 condition that is False.
type ConditionSeverity string

// Condition is a v1beta1 Cluster API condition: a metav1-like condition with a severity.
type Condition struct {
	// type of condition in CamelCase.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Type string `json:"type"`

	// status of the condition, one of True, False, Unknown.
	// +required
	Status corev1.ConditionStatus `json:"status"`

	// severity provides an explicit classification of reason code, for a False condition.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Severity ConditionSeverity `json:"severity,omitempty"`

	// lastTransitionTime is the last time the condition transitioned from one status to another.
	// +required
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`

	// reason is the reason for the condition's last transition in CamelCase.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason,omitempty"`

	// message is a human readable message indicating details about the transition.
	// +optional
	// +kubebuilder:validation:MaxLength=10240
	Message string `json:"message,omitempty"`
}

// Conditions is a list of v1beta1 conditions.
type Conditions []Condition

// ObjectMeta is the metadata a template may set: labels and annotations.
type ObjectMeta struct {
	// labels to put on the objects created from this template.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations to put on the objects created from this template.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}
