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
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels the topology controller puts on the objects it generates, as upstream does.
const (
	// ClusterTopologyOwnedLabel marks every object generated from a Cluster's topology; the topology
	// controller lists and watches managed objects by it.
	ClusterTopologyOwnedLabel = "topology.cluster.x-k8s.io/owned"

	// ClusterTopologyMachineDeploymentNameLabel is the topology name of the MachineDeployment an
	// object was generated for: on the MachineDeployment, its machine template, its selector and its
	// template copies.
	ClusterTopologyMachineDeploymentNameLabel = "topology.cluster.x-k8s.io/deployment-name"

	// ClusterTopologyMachinePoolNameLabel is the topology name of the MachinePool an object was
	// generated for: on the MachinePool, its template metadata, its BootstrapConfig and its
	// InfraMachinePool.
	ClusterTopologyMachinePoolNameLabel = "topology.cluster.x-k8s.io/pool-name"

	// ClusterTopologyHoldUpgradeSequenceAnnotation and ClusterTopologyDeferUpgradeAnnotation are set
	// by users in MachineDeployment and MachinePool topology metadata; they are never copied to
	// generated objects.
	ClusterTopologyHoldUpgradeSequenceAnnotation = "topology.cluster.x-k8s.io/hold-upgrade-sequence"
	ClusterTopologyDeferUpgradeAnnotation        = "topology.cluster.x-k8s.io/defer-upgrade"

	// ClusterTopologyUpgradeConcurrencyAnnotation, set by users on a topology Cluster, is how many
	// MachineDeployments, and separately how many MachinePools, may upgrade at once: an integer of
	// at least 1; 1 when absent.
	ClusterTopologyUpgradeConcurrencyAnnotation = "topology.cluster.x-k8s.io/upgrade-concurrency"
)

// Cluster's TopologyReconciled condition and reasons (only on Clusters with spec.topology), set by
// the topology controller. Upstream's Paused reason is not used: a paused Cluster is left untouched.
// The upgrade reasons are release-1.11's finer ones (ControlPlaneUpgradePending,
// MachineDeploymentsUpgradePending, MachineDeploymentsUpgradeDeferred, MachinePoolsUpgradePending,
// MachinePoolsUpgradeDeferred) plus ClusterUpgrading for an upgrade that is running with nothing
// held.
const (
	// ClusterTopologyReconciledCondition is true when the objects the Cluster's topology describes
	// match its ClusterClass and topology.
	ClusterTopologyReconciledCondition = "TopologyReconciled"

	// ClusterTopologyReconciledClusterClassNotReconciledReason is used while the Cluster's class is
	// missing, has VariablesReady False, or was changed and not yet reconciled.
	ClusterTopologyReconciledClusterClassNotReconciledReason = "ClusterClassNotReconciled"

	// ClusterTopologyReconciledVariablesInvalidReason is used when the Cluster's topology variables
	// do not match the class's definitions; the message names the variable and the field path.
	ClusterTopologyReconciledVariablesInvalidReason = "VariablesInvalid"

	// ClusterTopologyReconciledFailedReason is used when reconciling the topology failed (a
	// template could not be read, a patch failed, an object was refused); the message is the error.
	ClusterTopologyReconciledFailedReason = "ReconcileFailed"

	// ClusterTopologyReconciledSucceededReason is used when every generated object matches the
	// Cluster's class and topology.
	ClusterTopologyReconciledSucceededReason = "ReconcileSucceeded"

	// ClusterTopologyReconciledControlPlaneUpgradePendingReason is used while spec.topology.version
	// differs from the control plane's version and the control plane cannot be upgraded yet
	// (provisioning, upgrading, scaling, workers still upgrading, or a version skip or downgrade
	// that is refused); the message says why.
	ClusterTopologyReconciledControlPlaneUpgradePendingReason = "ControlPlaneUpgradePending"

	// ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason is used while a
	// MachineDeployment waits for the control plane to be upgraded and stable, or for the upgrade
	// concurrency to allow it; the message names each one and why.
	ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason = "MachineDeploymentsUpgradePending"

	// ClusterTopologyReconciledMachineDeploymentsUpgradeDeferredReason is used when only the
	// defer-upgrade or hold-upgrade-sequence annotations keep MachineDeployments from upgrading.
	ClusterTopologyReconciledMachineDeploymentsUpgradeDeferredReason = "MachineDeploymentsUpgradeDeferred"

	// ClusterTopologyReconciledMachinePoolsUpgradePendingReason is used while a MachinePool waits
	// for the control plane to be upgraded and stable, for the MachineDeployments to finish their
	// upgrade, or for the upgrade concurrency to allow it; the message names each one and why.
	ClusterTopologyReconciledMachinePoolsUpgradePendingReason = "MachinePoolsUpgradePending"

	// ClusterTopologyReconciledMachinePoolsUpgradeDeferredReason is used when only the
	// defer-upgrade or hold-upgrade-sequence annotations keep MachinePools from upgrading.
	ClusterTopologyReconciledMachinePoolsUpgradeDeferredReason = "MachinePoolsUpgradeDeferred"

	// ClusterTopologyReconciledClusterUpgradingReason is used while the control plane,
	// MachineDeployments or MachinePools roll out a new version and nothing else is held.
	ClusterTopologyReconciledClusterUpgradingReason = "ClusterUpgrading"

	// ClusterTopologyReconciledClusterCreatingReason is used while a BeforeClusterCreate hook of a
	// Runtime Extension holds the creation of the Cluster's topology objects.
	ClusterTopologyReconciledClusterCreatingReason = "ClusterCreating"

	// ClusterTopologyReconciledDeletingReason is used once the Cluster is being deleted: the
	// topology is no longer reconciled, and a BeforeClusterDelete hook may hold the deletion.
	ClusterTopologyReconciledDeletingReason = DeletingReason
)

// Topology says which ClusterClass a Cluster is built from and how: version, control plane, workers
// and variable values. The topology controller generates and owns the Cluster's provider objects.
type Topology struct {
	// classRef names the ClusterClass.
	// +required
	ClassRef ClusterClassRef `json:"classRef,omitempty,omitzero"`

	// version is the Kubernetes version of the cluster, e.g. v1.37.2.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^v?(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)(-[0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?([+][0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?$')",messageExpression="'version \"' + self + '\" is not a semantic version: write the Kubernetes version as vMAJOR.MINOR.PATCH, e.g. v1.37.2'"
	Version string `json:"version,omitempty"`

	// controlPlane configures the control plane.
	// +optional
	ControlPlane ControlPlaneTopology `json:"controlPlane,omitempty,omitzero"`

	// workers are the Cluster's MachineDeployments and MachinePools.
	// +optional
	Workers WorkersTopology `json:"workers,omitempty,omitzero"`

	// variables are values for the class's variables; the ClusterClass's status.variables says
	// which exist and what they may hold.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	Variables []ClusterVariable `json:"variables,omitempty"`
}

// IsDefined reports whether the topology is set.
func (t *Topology) IsDefined() bool {
	return t != nil && !reflect.ValueOf(*t).IsZero()
}

// ClusterClassRef names a ClusterClass.
type ClusterClassRef struct {
	// name of the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'classRef.name \"' + self + '\" is not an object name: write the name of a ClusterClass, e.g. quick-start'"
	Name string `json:"name,omitempty"`

	// namespace of the ClusterClass; defaults to the Cluster's namespace.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// ControlPlaneTopology configures a topology's control plane.
// +kubebuilder:validation:MinProperties=1
type ControlPlaneTopology struct {
	// metadata goes on the control plane object and its Machines, merged over the class's.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty,omitzero"`

	// replicas is the number of control plane Machines; unset leaves the control plane object's
	// replicas to its provider.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// rollout forces a rollout of the control plane Machines.
	// +optional
	Rollout ControlPlaneTopologyRolloutSpec `json:"rollout,omitempty,omitzero"`

	// healthCheck enables, disables or overrides the class's control plane health check.
	// +optional
	HealthCheck ControlPlaneTopologyHealthCheck `json:"healthCheck,omitempty,omitzero"`

	// deletion bounds Machine deletion steps, over the class's.
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints replace the class's control plane taints.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`

	// readinessGates replace the class's control plane readiness gates.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []MachineReadinessGate `json:"readinessGates,omitempty"`

	// variables override Cluster-wide variable values for the control plane's templates.
	// +optional
	Variables TopologyVariables `json:"variables,omitempty,omitzero"`
}

// ControlPlaneTopologyRolloutSpec forces a rollout of control plane Machines.
// +kubebuilder:validation:MinProperties=1
type ControlPlaneTopologyRolloutSpec struct {
	// after rolls out every Machine created before this time.
	// +optional
	After metav1.Time `json:"after,omitempty,omitzero"`
}

// ControlPlaneTopologyHealthCheck enables, disables or overrides a control plane health check.
// +kubebuilder:validation:MinProperties=1
type ControlPlaneTopologyHealthCheck struct {
	// enabled: false removes the health check; unset or true keeps the one the class or this
	// topology defines.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// checks replace, with remediation, the class's health check.
	// +optional
	Checks HealthCheckChecks `json:"checks,omitempty,omitzero"`

	// remediation replaces, with checks, the class's health check.
	// +optional
	Remediation HealthCheckRemediation `json:"remediation,omitempty,omitzero"`
}

// TopologyVariables override Cluster-wide variable values for part of a topology.
// +kubebuilder:validation:MinProperties=1
type TopologyVariables struct {
	// overrides replace the Cluster-wide values of these variables.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1000
	Overrides []ClusterVariable `json:"overrides,omitempty"`
}

// WorkersTopology lists a topology's MachineDeployments and MachinePools. Upstream allows 2000 of
// each; 100 keeps the CEL rules on their labels and taints within the apiserver's cost budget.
// +kubebuilder:validation:MinProperties=1
type WorkersTopology struct {
	// machineDeployments of the Cluster, each with a unique name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	MachineDeployments []MachineDeploymentTopology `json:"machineDeployments,omitempty"`

	// machinePools of the Cluster, each with a unique name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	MachinePools []MachinePoolTopology `json:"machinePools,omitempty"`
}

// MachineDeploymentTopology is one MachineDeployment of a topology.
type MachineDeploymentTopology struct {
	// metadata goes on the MachineDeployment and its Machines, merged over the class's.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty,omitzero"`

	// class names a MachineDeployment class of the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Class string `json:"class,omitempty"`

	// name identifies this MachineDeployment in the topology (the topology name); unique.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'name \"' + self + '\" is not a valid topology name: use lowercase letters, digits, dashes and dots, starting and ending with a letter or digit, e.g. md-0'"
	Name string `json:"name,omitempty"`

	// failureDomain the Machines are created in, over the class's.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// replicas is the number of Machines; unset leaves it to e.g. an autoscaler.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// healthCheck enables, disables or overrides the class's health check.
	// +optional
	HealthCheck MachineDeploymentTopologyHealthCheck `json:"healthCheck,omitempty,omitzero"`

	// deletion sets the scale-down order and bounds Machine deletion steps, over the class's.
	// +optional
	Deletion MachineDeploymentClassMachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints replace the class's.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`

	// minReadySeconds replaces the class's.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// readinessGates replace the class's.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []MachineReadinessGate `json:"readinessGates,omitempty"`

	// rollout replaces the class's rollout settings.
	// +optional
	Rollout MachineDeploymentTopologyRolloutSpec `json:"rollout,omitempty,omitzero"`

	// variables override Cluster-wide variable values for this MachineDeployment's templates.
	// +optional
	Variables TopologyVariables `json:"variables,omitempty,omitzero"`
}

// MachineDeploymentTopologyHealthCheck enables, disables or overrides a MachineDeployment health check.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentTopologyHealthCheck struct {
	// enabled: false removes the health check; unset or true keeps the one the class or this
	// topology defines.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// checks replace, with remediation, the class's health check.
	// +optional
	Checks HealthCheckChecks `json:"checks,omitempty,omitzero"`

	// remediation replaces, with checks, the class's health check.
	// +optional
	Remediation MachineDeploymentClassHealthCheckRemediation `json:"remediation,omitempty,omitzero"`
}

// MachineDeploymentTopologyRolloutSpec configures the rollout of a topology's MachineDeployment.
// +kubebuilder:validation:MinProperties=1
type MachineDeploymentTopologyRolloutSpec struct {
	// after rolls out every Machine created before this time.
	// +optional
	After metav1.Time `json:"after,omitempty,omitzero"`

	// strategy is how Machines are replaced.
	// +optional
	Strategy MachineDeploymentClassRolloutStrategy `json:"strategy,omitempty,omitzero"`
}

// MachinePoolTopology is one MachinePool of a topology.
type MachinePoolTopology struct {
	// metadata goes on the MachinePool, merged over the class's.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty,omitzero"`

	// class names a MachinePool class of the ClusterClass.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Class string `json:"class,omitempty"`

	// name identifies this MachinePool in the topology (the topology name); unique.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'name \"' + self + '\" is not a valid topology name: use lowercase letters, digits, dashes and dots, starting and ending with a letter or digit, e.g. mp-0'"
	Name string `json:"name,omitempty"`

	// failureDomains the pool spans, over the class's.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	FailureDomains []string `json:"failureDomains,omitempty"`

	// deletion bounds Machine deletion steps, over the class's.
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints replace the class's.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []MachineTaint `json:"taints,omitempty"`

	// minReadySeconds replaces the class's.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// replicas is the number of Machines; unset leaves it to e.g. an autoscaler.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// variables override Cluster-wide variable values for this MachinePool's templates.
	// +optional
	Variables TopologyVariables `json:"variables,omitempty,omitzero"`
}

// ClusterVariable is the value of one ClusterClass variable.
type ClusterVariable struct {
	// name of the variable, as the class defines it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// value of the variable, any JSON; checked against the class's schema.
	// +required
	Value apiextensionsv1.JSON `json:"value,omitempty,omitzero"`
}
