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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Topology is upstream's v1beta1 Cluster.spec.topology: the class by name and namespace, the
// health checks as MachineHealthCheck-shaped stanzas and durations where v1beta2 has seconds.
type Topology struct {
	// class is the name of the ClusterClass the Cluster is built from.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Class string `json:"class"`

	// classNamespace is the namespace of the ClusterClass; empty means the Cluster's namespace.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ClassNamespace string `json:"classNamespace,omitempty"`

	// version is the Kubernetes version of the cluster.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Version string `json:"version"`

	// rolloutAfter had no function upstream and has no v1beta2 field: it is kept only in the
	// conversion-data annotation, for v1beta1 clients that read it back.
	// +optional
	RolloutAfter *metav1.Time `json:"rolloutAfter,omitempty"`

	// controlPlane describes the cluster control plane.
	// +optional
	ControlPlane ControlPlaneTopology `json:"controlPlane,omitempty"`

	// workers are the Cluster's MachineDeployments and MachinePools.
	// +optional
	Workers *WorkersTopology `json:"workers,omitempty"`

	// variables are values for the class's variables.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Variables []ClusterVariable `json:"variables,omitempty"`
}

// ControlPlaneTopology configures a topology's control plane.
type ControlPlaneTopology struct {
	// metadata goes on the control plane object and its Machines, merged over the class's.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`

	// replicas is the number of control plane Machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// rollout forces a rollout of the control plane Machines.
	// +optional
	Rollout clusterv1.ControlPlaneTopologyRolloutSpec `json:"rollout,omitempty,omitzero"`

	// machineHealthCheck enables, disables or overrides the class's control plane health check.
	// +optional
	MachineHealthCheck *MachineHealthCheckTopology `json:"machineHealthCheck,omitempty"`

	// nodeDrainTimeout bounds the drain of a Node.
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`

	// nodeVolumeDetachTimeout bounds the wait for volumes to detach.
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`

	// nodeDeletionTimeout bounds the deletion of the Node.
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`

	// taints replace the class's control plane taints.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`

	// readinessGates replace the class's control plane readiness gates.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`

	// variables override Cluster-wide variable values for the control plane.
	// +optional
	Variables *ControlPlaneVariables `json:"variables,omitempty"`
}

// WorkersTopology lists a topology's MachineDeployments and MachinePools.
type WorkersTopology struct {
	// machineDeployments of the Cluster.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	MachineDeployments []MachineDeploymentTopology `json:"machineDeployments,omitempty"`

	// machinePools of the Cluster.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	MachinePools []MachinePoolTopology `json:"machinePools,omitempty"`
}

// MachineDeploymentTopology is one MachineDeployment of a topology.
type MachineDeploymentTopology struct {
	// metadata goes on the MachineDeployment and its Machines, merged over the class's.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`

	// class names a MachineDeployment class of the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Class string `json:"class"`

	// name identifies this MachineDeployment in the topology.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// failureDomain the Machines are created in.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain *string `json:"failureDomain,omitempty"`

	// replicas is the number of Machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// machineHealthCheck enables, disables or overrides the class's health check.
	// +optional
	MachineHealthCheck *MachineHealthCheckTopology `json:"machineHealthCheck,omitempty"`

	// nodeDrainTimeout bounds the drain of a Node.
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`

	// nodeVolumeDetachTimeout bounds the wait for volumes to detach.
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`

	// nodeDeletionTimeout bounds the deletion of the Node.
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`

	// taints replace the class's.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`

	// minReadySeconds replaces the class's.
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// readinessGates replace the class's.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`

	// rollout forces a rollout of the MachineDeployment's Machines.
	// +optional
	Rollout MachineDeploymentTopologyRolloutSpec `json:"rollout,omitempty,omitzero"`

	// strategy is how Machines are replaced, the scale-down order and the remediation limit.
	// +optional
	Strategy *MachineDeploymentStrategy `json:"strategy,omitempty"`

	// variables override Cluster-wide variable values for this MachineDeployment.
	// +optional
	Variables *MachineDeploymentVariables `json:"variables,omitempty"`
}

// MachineDeploymentTopologyRolloutSpec forces a rollout of a topology MachineDeployment.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentTopologyRolloutSpec struct {
	// after rolls out every Machine created before this time.
	// +optional
	After metav1.Time `json:"after,omitempty,omitzero"`
}

// MachineHealthCheckTopology enables, disables or overrides a class's health check.
type MachineHealthCheckTopology struct {
	// enable: false removes the health check; true requires one.
	// +optional
	Enable *bool `json:"enable,omitempty"`

	// MachineHealthCheckClass, when any field is set, replaces the class's health check.
	MachineHealthCheckClass `json:",inline"`
}

// MachineHealthCheckClass is a MachineHealthCheck for a group of Machines, as upstream's v1beta1
// ClusterClass and topology write it.
type MachineHealthCheckClass struct {
	// unhealthyConditions are the Node conditions that make a Machine unhealthy.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	UnhealthyConditions []UnhealthyCondition `json:"unhealthyConditions,omitempty"`

	// unhealthyMachineConditions are the Machine conditions that make a Machine unhealthy.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	UnhealthyMachineConditions []UnhealthyMachineCondition `json:"unhealthyMachineConditions,omitempty"`

	// maxUnhealthy is the most unhealthy Machines remediation is allowed with.
	// +optional
	MaxUnhealthy *intstr.IntOrString `json:"maxUnhealthy,omitempty"`

	// unhealthyRange is the range of unhealthy Machines remediation is allowed in, e.g. "[3-5]".
	// +optional
	// +kubebuilder:validation:Pattern=^\[[0-9]+-[0-9]+\]$
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	UnhealthyRange *string `json:"unhealthyRange,omitempty"`

	// nodeStartupTimeout is how long a Machine may take to get a Node.
	// +optional
	NodeStartupTimeout *metav1.Duration `json:"nodeStartupTimeout,omitempty"`

	// remediationTemplate is an external remediation template.
	// +optional
	RemediationTemplate *corev1.ObjectReference `json:"remediationTemplate,omitempty"`
}

// MachinePoolTopology is one MachinePool of a topology.
type MachinePoolTopology struct {
	// metadata goes on the MachinePool, merged over the class's.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`

	// class names a MachinePool class of the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Class string `json:"class"`

	// name identifies this MachinePool in the topology.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// failureDomains the pool spans.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	FailureDomains []string `json:"failureDomains,omitempty"`

	// nodeDrainTimeout bounds the drain of a Node.
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`

	// nodeVolumeDetachTimeout bounds the wait for volumes to detach.
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`

	// nodeDeletionTimeout bounds the deletion of the Node.
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`

	// taints replace the class's.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`

	// minReadySeconds replaces the class's.
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// replicas is the number of Machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// variables override Cluster-wide variable values for this MachinePool.
	// +optional
	Variables *MachinePoolVariables `json:"variables,omitempty"`
}

// ClusterVariable is the value of one ClusterClass variable.
type ClusterVariable struct {
	// name of the variable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// definitionFrom was deprecated upstream and has no v1beta2 field: it is kept only in the
	// conversion-data annotation.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	DefinitionFrom string `json:"definitionFrom,omitempty"`

	// value of the variable, any JSON.
	// +required
	Value apiextensionsv1.JSON `json:"value"`
}

// ControlPlaneVariables override Cluster-wide variable values for the control plane.
type ControlPlaneVariables struct {
	// overrides replace the Cluster-wide values of these variables.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Overrides []ClusterVariable `json:"overrides,omitempty"`
}

// MachineDeploymentVariables override Cluster-wide variable values for a MachineDeployment.
type MachineDeploymentVariables struct {
	// overrides replace the Cluster-wide values of these variables.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Overrides []ClusterVariable `json:"overrides,omitempty"`
}

// MachinePoolVariables override Cluster-wide variable values for a MachinePool.
type MachinePoolVariables struct {
	// overrides replace the Cluster-wide values of these variables.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Overrides []ClusterVariable `json:"overrides,omitempty"`
}
