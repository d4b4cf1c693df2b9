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

package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ClusterFinalizer keeps an ExampleCluster until its controller has released
// the cluster's infrastructure.
const ClusterFinalizer = "infrastructure.example.capstan.dev/examplecluster"

// ExampleClusterSpec is the desired state of an ExampleCluster.
type ExampleClusterSpec struct {
	// controlPlaneEndpoint is where the workload cluster's API server is reached.
	// The controller sets it (a real provider: from the load balancer it creates);
	// the contract's core copies it to Cluster.spec.controlPlaneEndpoint.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// ExampleClusterStatus is the observed state of an ExampleCluster.
type ExampleClusterStatus struct {
	// conditions: Ready, Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization holds the contract's one-way provisioning milestone.
	// +optional
	Initialization ExampleClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// failureDomains are where Machines may be placed; the core copies them to the Cluster.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []clusterv1.FailureDomain `json:"failureDomains,omitempty"`
}

// ExampleClusterInitializationStatus is the contract's initialization struct.
// +kubebuilder:validation:MinProperties=1
type ExampleClusterInitializationStatus struct {
	// provisioned is true once the cluster infrastructure is ready; the core copies
	// it to Cluster.status.initialization.infrastructureProvisioned.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=exampleclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1_v1alpha2"

// ExampleCluster is the infrastructure of one Cluster.
type ExampleCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ExampleClusterSpec `json:"spec,omitempty,omitzero"`
	// +optional
	Status ExampleClusterStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the conditions, for the shared condition helpers.
func (c *ExampleCluster) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions replaces the conditions, for the shared condition helpers.
func (c *ExampleCluster) SetConditions(conds []metav1.Condition) { c.Status.Conditions = conds }

// +kubebuilder:object:root=true

// ExampleClusterList is a list of ExampleClusters.
type ExampleClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExampleCluster `json:"items"`
}
