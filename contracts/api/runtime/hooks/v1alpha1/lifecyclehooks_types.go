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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Every lifecycle request carries the Cluster without status and managedFields.

// BeforeClusterCreateRequest is sent before a Cluster's topology objects are created.
type BeforeClusterCreateRequest struct {
	metav1.TypeMeta `json:",inline"`
	CommonRequest   `json:",inline"`
	Cluster         clusterv1.Cluster `json:"cluster"`
}

// BeforeClusterCreateResponse blocks the creation while retryAfterSeconds > 0.
type BeforeClusterCreateResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// AfterControlPlaneInitializedRequest is sent once the control plane is first reachable.
type AfterControlPlaneInitializedRequest struct {
	metav1.TypeMeta `json:",inline"`
	CommonRequest   `json:",inline"`
	Cluster         clusterv1.Cluster `json:"cluster"`
}

// AfterControlPlaneInitializedResponse does not block.
type AfterControlPlaneInitializedResponse struct {
	metav1.TypeMeta `json:",inline"`
	CommonResponse  `json:",inline"`
}

// UpgradeStepInfo is one step of the remaining upgrade plan.
type UpgradeStepInfo struct {
	Version string `json:"version,omitempty"`
}

// BeforeClusterUpgradeRequest is sent once, when an upgrade starts.
type BeforeClusterUpgradeRequest struct {
	metav1.TypeMeta       `json:",inline"`
	CommonRequest         `json:",inline"`
	Cluster               clusterv1.Cluster `json:"cluster"`
	FromKubernetesVersion string            `json:"fromKubernetesVersion"`
	ToKubernetesVersion   string            `json:"toKubernetesVersion"`
	ControlPlaneUpgrades  []UpgradeStepInfo `json:"controlPlaneUpgrades,omitempty"`
	WorkersUpgrades       []UpgradeStepInfo `json:"workersUpgrades,omitempty"`
}

// BeforeClusterUpgradeResponse blocks the whole upgrade while retryAfterSeconds > 0.
type BeforeClusterUpgradeResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// BeforeControlPlaneUpgradeRequest is sent before each control plane step.
type BeforeControlPlaneUpgradeRequest struct {
	metav1.TypeMeta       `json:",inline"`
	CommonRequest         `json:",inline"`
	Cluster               clusterv1.Cluster `json:"cluster"`
	FromKubernetesVersion string            `json:"fromKubernetesVersion"`
	ToKubernetesVersion   string            `json:"toKubernetesVersion"`
	ControlPlaneUpgrades  []UpgradeStepInfo `json:"controlPlaneUpgrades,omitempty"`
	WorkersUpgrades       []UpgradeStepInfo `json:"workersUpgrades,omitempty"`
}

// BeforeControlPlaneUpgradeResponse blocks that step while retryAfterSeconds > 0.
type BeforeControlPlaneUpgradeResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// AfterControlPlaneUpgradeRequest is sent once a control plane step is done.
type AfterControlPlaneUpgradeRequest struct {
	metav1.TypeMeta      `json:",inline"`
	CommonRequest        `json:",inline"`
	Cluster              clusterv1.Cluster `json:"cluster"`
	KubernetesVersion    string            `json:"kubernetesVersion"`
	ControlPlaneUpgrades []UpgradeStepInfo `json:"controlPlaneUpgrades,omitempty"`
	WorkersUpgrades      []UpgradeStepInfo `json:"workersUpgrades,omitempty"`
}

// AfterControlPlaneUpgradeResponse blocks the workers and the next step while
// retryAfterSeconds > 0.
type AfterControlPlaneUpgradeResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// BeforeWorkersUpgradeRequest is sent before the workers pick up a version.
type BeforeWorkersUpgradeRequest struct {
	metav1.TypeMeta       `json:",inline"`
	CommonRequest         `json:",inline"`
	Cluster               clusterv1.Cluster `json:"cluster"`
	FromKubernetesVersion string            `json:"fromKubernetesVersion"`
	ToKubernetesVersion   string            `json:"toKubernetesVersion"`
	ControlPlaneUpgrades  []UpgradeStepInfo `json:"controlPlaneUpgrades,omitempty"`
	WorkersUpgrades       []UpgradeStepInfo `json:"workersUpgrades,omitempty"`
}

// BeforeWorkersUpgradeResponse blocks the workers while retryAfterSeconds > 0.
type BeforeWorkersUpgradeResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// AfterWorkersUpgradeRequest is sent once the workers are done with a step.
type AfterWorkersUpgradeRequest struct {
	metav1.TypeMeta      `json:",inline"`
	CommonRequest        `json:",inline"`
	Cluster              clusterv1.Cluster `json:"cluster"`
	KubernetesVersion    string            `json:"kubernetesVersion"`
	ControlPlaneUpgrades []UpgradeStepInfo `json:"controlPlaneUpgrades,omitempty"`
	WorkersUpgrades      []UpgradeStepInfo `json:"workersUpgrades,omitempty"`
}

// AfterWorkersUpgradeResponse blocks the next step while retryAfterSeconds > 0.
type AfterWorkersUpgradeResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// AfterClusterUpgradeRequest is sent once the whole upgrade is done.
type AfterClusterUpgradeRequest struct {
	metav1.TypeMeta   `json:",inline"`
	CommonRequest     `json:",inline"`
	Cluster           clusterv1.Cluster `json:"cluster"`
	KubernetesVersion string            `json:"kubernetesVersion"`
}

// AfterClusterUpgradeResponse blocks the next upgrade while retryAfterSeconds > 0.
type AfterClusterUpgradeResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}

// BeforeClusterDeleteRequest is sent before a Cluster's deletion starts.
type BeforeClusterDeleteRequest struct {
	metav1.TypeMeta `json:",inline"`
	CommonRequest   `json:",inline"`
	Cluster         clusterv1.Cluster `json:"cluster"`
}

// BeforeClusterDeleteResponse blocks the deletion while retryAfterSeconds > 0.
type BeforeClusterDeleteResponse struct {
	metav1.TypeMeta     `json:",inline"`
	CommonRetryResponse `json:",inline"`
}
