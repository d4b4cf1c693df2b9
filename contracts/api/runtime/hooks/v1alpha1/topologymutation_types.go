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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// GeneratePatchesRequest asks for patches to a Cluster's templates.
type GeneratePatchesRequest struct {
	metav1.TypeMeta `json:",inline"`
	CommonRequest   `json:",inline"`
	// Variables are the global variables (builtin among them).
	Variables []Variable `json:"variables,omitempty"`
	// Items are the templates to patch.
	Items []GeneratePatchesRequestItem `json:"items"`
}

// GeneratePatchesRequestItem is one template; its uid is random per call and echoed back.
type GeneratePatchesRequestItem struct {
	UID             types.UID            `json:"uid"`
	HolderReference HolderReference      `json:"holderReference"`
	Object          runtime.RawExtension `json:"object"`
	Variables       []Variable           `json:"variables,omitempty"`
}

// GeneratePatchesResponse holds one patch per item it changes.
type GeneratePatchesResponse struct {
	metav1.TypeMeta `json:",inline"`
	CommonResponse  `json:",inline"`
	Items           []GeneratePatchesResponseItem `json:"items,omitempty"`
}

// GeneratePatchesResponseItem is the patch of the request item with the same uid; patch is
// base64 in JSON.
type GeneratePatchesResponseItem struct {
	UID       types.UID `json:"uid"`
	PatchType PatchType `json:"patchType"`
	Patch     []byte    `json:"patch"`
}

// ValidateTopologyRequest asks whether the patched templates are valid.
type ValidateTopologyRequest struct {
	metav1.TypeMeta `json:",inline"`
	CommonRequest   `json:",inline"`
	Variables       []Variable                     `json:"variables,omitempty"`
	Items           []*ValidateTopologyRequestItem `json:"items"`
}

// ValidateTopologyRequestItem is one patched template.
type ValidateTopologyRequestItem struct {
	HolderReference HolderReference      `json:"holderReference"`
	Object          runtime.RawExtension `json:"object"`
	Variables       []Variable           `json:"variables,omitempty"`
}

// ValidateTopologyResponse is Success or Failure.
type ValidateTopologyResponse struct {
	metav1.TypeMeta `json:",inline"`
	CommonResponse  `json:",inline"`
}

// Variable is a variable's name and JSON value.
type Variable struct {
	Name  string               `json:"name"`
	Value apiextensionsv1.JSON `json:"value"`
}

// HolderReference is the object and field that reference a template.
type HolderReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	FieldPath  string `json:"fieldPath"`
}

// DiscoverVariablesRequest asks which variables an extension's patches use.
type DiscoverVariablesRequest struct {
	metav1.TypeMeta `json:",inline"`
	CommonRequest   `json:",inline"`
}

// DiscoverVariablesResponse lists the variable definitions.
type DiscoverVariablesResponse struct {
	metav1.TypeMeta `json:",inline"`
	CommonResponse  `json:",inline"`
	Variables       []clusterv1.ClusterClassVariable `json:"variables,omitempty"`
}

// GenerateUpgradePlanRequest asks for the versions an upgrade goes through.
type GenerateUpgradePlanRequest struct {
	metav1.TypeMeta                   `json:",inline"`
	CommonRequest                     `json:",inline"`
	Cluster                           clusterv1.Cluster `json:"cluster,omitempty,omitzero"`
	FromControlPlaneKubernetesVersion string            `json:"fromControlPlaneKubernetesVersion,omitempty"`
	FromWorkersKubernetesVersion      string            `json:"fromWorkersKubernetesVersion,omitempty"`
	ToKubernetesVersion               string            `json:"toKubernetesVersion,omitempty"`
}

// GenerateUpgradePlanResponse is the plan: at least one step per minor, strictly increasing,
// the last one the target; workers' steps are optional.
type GenerateUpgradePlanResponse struct {
	metav1.TypeMeta      `json:",inline"`
	CommonResponse       `json:",inline"`
	ControlPlaneUpgrades []UpgradeStep `json:"controlPlaneUpgrades,omitempty"`
	WorkersUpgrades      []UpgradeStep `json:"workersUpgrades,omitempty"`
}

// UpgradeStep is one version of the plan.
type UpgradeStep struct {
	Version string `json:"version,omitempty"`
}
