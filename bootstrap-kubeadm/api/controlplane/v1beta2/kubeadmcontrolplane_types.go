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
	"k8s.io/apimachinery/pkg/util/intstr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

const (
	// KubeadmControlPlaneFinalizer is added by the KubeadmControlPlane controller so that it can
	// delete its Machines before the KubeadmControlPlane goes away.
	KubeadmControlPlaneFinalizer = "kubeadm.controlplane.cluster.x-k8s.io"

	// SkipCoreDNSAnnotation on a KubeadmControlPlane stops the controller from managing CoreDNS.
	SkipCoreDNSAnnotation = "controlplane.cluster.x-k8s.io/skip-coredns"

	// SkipKubeProxyAnnotation on a KubeadmControlPlane stops the controller from managing kube-proxy.
	SkipKubeProxyAnnotation = "controlplane.cluster.x-k8s.io/skip-kube-proxy"

	// EtcdSnapshotIntervalAnnotation on a KubeadmControlPlane with stacked etcd schedules
	// snapshots of its etcd: one every interval (a Go duration of at least 1m, e.g. "6h"),
	// saved by the controller into EtcdSnapshotDirectoryAnnotation's directory.
	EtcdSnapshotIntervalAnnotation = "controlplane.cluster.x-k8s.io/etcd-snapshot-interval"

	// EtcdSnapshotKeepAnnotation is how many scheduled snapshots are kept, the newest (default 7).
	EtcdSnapshotKeepAnnotation = "controlplane.cluster.x-k8s.io/etcd-snapshot-keep"

	// EtcdSnapshotDirectoryAnnotation is the absolute path of a directory of the controller's
	// filesystem (the management host for a local manager, a mounted volume in a Pod) that the
	// scheduled snapshots go to, under <namespace>/<cluster>/.
	EtcdSnapshotDirectoryAnnotation = "controlplane.cluster.x-k8s.io/etcd-snapshot-directory"

	// RemediationInProgressAnnotation is set on the KubeadmControlPlane between deleting an
	// unhealthy Machine and creating its replacement, so that remediation stays one at a time even
	// across controller restarts.
	RemediationInProgressAnnotation = "controlplane.cluster.x-k8s.io/remediation-in-progress"

	// RemediationForAnnotation is set on a replacement Machine and names the first unhealthy
	// Machine of its remediation sequence, so that retries are counted.
	RemediationForAnnotation = "controlplane.cluster.x-k8s.io/remediation-for"

	// PreTerminateHookCleanupAnnotation is the pre-terminate hook the controller puts on its
	// Machines, so that it can remove the Machine's etcd member after the Node is drained and
	// before the infrastructure goes away.
	PreTerminateHookCleanupAnnotation = clusterv1.PreTerminateDeleteHookAnnotationPrefix + "/kcp-cleanup"

	// DefaultMinHealthyPeriodSeconds is used when spec.remediation.minHealthyPeriodSeconds is unset.
	DefaultMinHealthyPeriodSeconds = int32(60 * 60)
)

// KubeadmControlPlaneRolloutStrategyType is how a KubeadmControlPlane replaces Machines.
// +kubebuilder:validation:Enum=RollingUpdate
type KubeadmControlPlaneRolloutStrategyType string

const (
	// RollingUpdateStrategyType replaces Machines one at a time.
	RollingUpdateStrategyType KubeadmControlPlaneRolloutStrategyType = "RollingUpdate"
)

// KubeadmControlPlaneSpec is the desired state of a KubeadmControlPlane. The rules below are the
// ones upstream's KubeadmControlPlane webhook enforces, as admission rules.
// +kubebuilder:validation:XValidation:rule="!has(self.rollout) || !has(self.rollout.strategy) || !has(self.rollout.strategy.rollingUpdate) || !has(self.rollout.strategy.rollingUpdate.maxSurge) || type(self.rollout.strategy.rollingUpdate.maxSurge) != int || self.rollout.strategy.rollingUpdate.maxSurge != 0 || !has(self.replicas) || self.replicas >= 3",fieldPath=".rollout.strategy.rollingUpdate.maxSurge",message="maxSurge 0 needs at least 3 replicas: with maxSurge 0 a Machine is deleted before its replacement exists, and with a single replica that leaves no control plane to join, so an upgrade could never proceed; set maxSurge to 1, or replicas to 3 or more"
// +kubebuilder:validation:XValidation:rule="(has(self.kubeadmConfigSpec) && has(self.kubeadmConfigSpec.clusterConfiguration) && has(self.kubeadmConfigSpec.clusterConfiguration.certificatesDir) ? self.kubeadmConfigSpec.clusterConfiguration.certificatesDir : \"\") == (has(oldSelf.kubeadmConfigSpec) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration.certificatesDir) ? oldSelf.kubeadmConfigSpec.clusterConfiguration.certificatesDir : \"\")",fieldPath=".kubeadmConfigSpec.clusterConfiguration.certificatesDir",message="certificatesDir cannot be changed: the existing Machines keep their certificates where the cluster was created, and joining Machines look for them there; keep the old value (create a new cluster to use another directory)"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.replicas % 2 == 1 || (has(self.kubeadmConfigSpec) && has(self.kubeadmConfigSpec.clusterConfiguration) && has(self.kubeadmConfigSpec.clusterConfiguration.etcd) && has(self.kubeadmConfigSpec.clusterConfiguration.etcd.external))",fieldPath=".replicas",message="replicas must be odd (1, 3, 5...) with stacked etcd: each control plane Machine runs an etcd member, and an even member count tolerates no more failures than one member fewer; use the next odd number (even numbers are allowed with clusterConfiguration.etcd.external)"
// +kubebuilder:validation:XValidation:rule="(has(self.kubeadmConfigSpec) && has(self.kubeadmConfigSpec.clusterConfiguration) && has(self.kubeadmConfigSpec.clusterConfiguration.caCertificateValidityPeriodDays) ? self.kubeadmConfigSpec.clusterConfiguration.caCertificateValidityPeriodDays : 0) == (has(oldSelf.kubeadmConfigSpec) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration.caCertificateValidityPeriodDays) ? oldSelf.kubeadmConfigSpec.clusterConfiguration.caCertificateValidityPeriodDays : 0)",fieldPath=".kubeadmConfigSpec.clusterConfiguration.caCertificateValidityPeriodDays",message="caCertificateValidityPeriodDays cannot be changed: the cluster CAs were generated with the validity it had when the cluster was created, and a new value would not reach them; keep the old value"
// +kubebuilder:validation:XValidation:rule="(has(self.kubeadmConfigSpec) && has(self.kubeadmConfigSpec.clusterConfiguration) && has(self.kubeadmConfigSpec.clusterConfiguration.etcd) && has(self.kubeadmConfigSpec.clusterConfiguration.etcd.external)) == (has(oldSelf.kubeadmConfigSpec) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration.etcd) && has(oldSelf.kubeadmConfigSpec.clusterConfiguration.etcd.external))",fieldPath=".kubeadmConfigSpec.clusterConfiguration.etcd",message="etcd cannot switch between local and external: the existing Machines run stacked etcd members (local) or none (external), and the Machines that replace them join the same kind; keep the etcd the cluster was created with"
type KubeadmControlPlaneSpec struct {
	// replicas is the number of control plane Machines. With stacked etcd (the default) an etcd
	// member runs on each of them, so the number must be odd: an even member count tolerates no
	// more failures than one member fewer. With external etcd any number is allowed.
	// Defaults to 1. The odd-number rule uses a fixed message because the apiserver refuses
	// string(<int>) in a messageExpression for cost.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=99
	Replicas *int32 `json:"replicas,omitempty"`

	// version is the Kubernetes version of the control plane, vMAJOR.MINOR.PATCH (e.g. v1.37.2).
	// An update may raise the minor version by one at most (kubeadm upgrades one minor version at a
	// time), as upstream's webhook enforces; like upstream, lower versions are not refused here.
	// +required
	// +kubebuilder:validation:XValidation:rule="!isSemver(self, true) || !isSemver(oldSelf, true) || (semver(self, true).major() == semver(oldSelf, true).major() ? semver(self, true).minor() <= semver(oldSelf, true).minor() + 1 : semver(self, true).major() < semver(oldSelf, true).major())",messageExpression="'cannot update version from ' + oldSelf + ' to ' + self + ': the control plane upgrades one minor version at a time; set the next minor version first, and this one once that rollout is done'"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^v(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)(-[0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?([+][0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?$')",messageExpression="'version \"' + self + '\" is not a Kubernetes version: write it as vMAJOR.MINOR.PATCH, e.g. v1.37.2'"
	Version string `json:"version,omitempty"`

	// machineTemplate describes the control plane Machines.
	// +required
	MachineTemplate KubeadmControlPlaneMachineTemplate `json:"machineTemplate,omitempty,omitzero"`

	// kubeadmConfigSpec is the bootstrap configuration of the control plane Machines: the first
	// Machine runs kubeadm init with clusterConfiguration and initConfiguration, the others run
	// kubeadm join with joinConfiguration.
	// +optional
	KubeadmConfigSpec bootstrapv1.KubeadmConfigSpec `json:"kubeadmConfigSpec,omitempty,omitzero"`

	// rollout configures when and how control plane Machines are replaced. When omitted it
	// defaults to a RollingUpdate with maxSurge 1.
	// +optional
	// +kubebuilder:default={strategy: {type: "RollingUpdate", rollingUpdate: {maxSurge: 1}}}
	Rollout KubeadmControlPlaneRolloutSpec `json:"rollout,omitempty,omitzero"`

	// remediation configures how unhealthy control plane Machines are remediated.
	// +optional
	Remediation KubeadmControlPlaneRemediationSpec `json:"remediation,omitempty,omitzero"`

	// machineNaming sets how new control plane Machines are named; their InfraMachines and
	// KubeadmConfigs get the same names.
	// +optional
	MachineNaming MachineNamingSpec `json:"machineNaming,omitempty,omitzero"`
}

// MachineNamingSpec sets how new Machines are named.
// +kubebuilder:validation:XValidation:rule="has(self.template)",message="must set template, or be left out instead of written as an empty object ({})"
type MachineNamingSpec struct {
	// template is a Go template of the names of new Machines. It may use {{ .cluster.name }},
	// {{ .kubeadmControlPlane.name }} and must use {{ .random }} (5 random lowercase letters and
	// digits, no vowels). Defaults to "{{ .kubeadmControlPlane.name }}-{{ .random }}". A name
	// longer than 63 characters is cut to 58 and given a random 5-character suffix.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.contains('{{ .random }}')",messageExpression="'template \"' + self + '\" does not contain {{ .random }}: without it every Machine would get the same name; add it, e.g. {{ .kubeadmControlPlane.name }}-{{ .random }}'"
	// +kubebuilder:validation:XValidation:rule="self.replace('{{ .cluster.name }}', 'c').replace('{{.cluster.name}}', 'c').replace('{{ .kubeadmControlPlane.name }}', 'k').replace('{{.kubeadmControlPlane.name}}', 'k').replace('{{ .random }}', 'r').replace('{{.random}}', 'r').matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'template \"' + self + '\" does not give valid Machine names: outside {{ .cluster.name }}, {{ .kubeadmControlPlane.name }} and {{ .random }} use only lowercase letters, digits, \"-\" and \".\", starting and ending with a letter or digit'"
	Template string `json:"template,omitempty"`
}

// KubeadmControlPlaneMachineTemplate describes the control plane Machines.
type KubeadmControlPlaneMachineTemplate struct {
	// metadata holds labels and annotations put on the control plane Machines, their KubeadmConfigs
	// and InfraMachines. Changes are applied to the existing Machines in place, without a rollout;
	// a key removed here is removed from them too, if the KubeadmControlPlane put it there.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec describes the control plane Machines.
	// +required
	Spec KubeadmControlPlaneMachineTemplateSpec `json:"spec,omitempty,omitzero"`
}

// KubeadmControlPlaneMachineTemplateSpec describes the control plane Machines.
type KubeadmControlPlaneMachineTemplateSpec struct {
	// infrastructureRef references the InfraMachineTemplate (e.g. a DevMachineTemplate) cloned for
	// each control plane Machine.
	// +required
	InfrastructureRef clusterv1.ContractVersionedObjectReference `json:"infrastructureRef,omitempty,omitzero"`

	// readinessGates are extra conditions of the Machines that must be true (or false, for
	// negative polarity) for a control plane Machine to be Ready, e.g. set by a controller that
	// checks special hardware. They are copied to the Machines in place, without a rollout.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`

	// deletion bounds the time spent on each step of a control plane Machine's deletion.
	// +optional
	Deletion KubeadmControlPlaneMachineTemplateDeletionSpec `json:"deletion,omitempty,omitzero"`

	// taints are the Node taints Cluster API manages on the control plane Nodes, at most 64. They
	// are copied to the Machines' spec.taints in place, without a rollout.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`
}

// KubeadmControlPlaneMachineTemplateDeletionSpec bounds the time spent on each step of a
// control plane Machine's deletion. It is copied to the Machines' spec.deletion in place, without
// a rollout.
// +kubebuilder:validation:XValidation:rule="has(self.nodeDrainTimeoutSeconds) || has(self.nodeVolumeDetachTimeoutSeconds) || has(self.nodeDeletionTimeoutSeconds)",message="must set at least one of nodeDrainTimeoutSeconds, nodeVolumeDetachTimeoutSeconds or nodeDeletionTimeoutSeconds, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneMachineTemplateDeletionSpec struct {
	// nodeDrainTimeoutSeconds is the most time spent draining the Node. 0 (the default) means no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDrainTimeoutSeconds *int32 `json:"nodeDrainTimeoutSeconds,omitempty"`

	// nodeVolumeDetachTimeoutSeconds is the most time spent waiting for volumes to detach from the
	// Node. 0 (the default) means no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeVolumeDetachTimeoutSeconds *int32 `json:"nodeVolumeDetachTimeoutSeconds,omitempty"`

	// nodeDeletionTimeoutSeconds is how long the Machine controller keeps trying to delete the Node
	// once the infrastructure is gone; 0 means retry forever. Unset keeps the Machine's default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDeletionTimeoutSeconds *int32 `json:"nodeDeletionTimeoutSeconds,omitempty"`
}

// KubeadmControlPlaneRolloutSpec configures when and how control plane Machines are replaced.
// +kubebuilder:validation:XValidation:rule="has(self.after) || has(self.before) || has(self.strategy)",message="must set at least one of after, before or strategy, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneRolloutSpec struct {
	// after forces a rollout of all Machines created before this time, even if nothing else
	// changed, e.g. to renew certificates. RFC3339, e.g. "2026-03-09T09:00:00Z".
	// +optional
	After metav1.Time `json:"after,omitempty,omitzero"`

	// before rolls out Machines ahead of an event, e.g. the expiry of their certificates.
	// +optional
	Before KubeadmControlPlaneRolloutBeforeSpec `json:"before,omitempty,omitzero"`

	// strategy is how Machines are replaced. Defaults to RollingUpdate with maxSurge 1.
	// +optional
	// +kubebuilder:default={type: "RollingUpdate", rollingUpdate: {maxSurge: 1}}
	Strategy KubeadmControlPlaneRolloutStrategy `json:"strategy,omitempty,omitzero"`
}

// KubeadmControlPlaneRolloutBeforeSpec rolls out Machines ahead of an event.
// +kubebuilder:validation:XValidation:rule="has(self.certificatesExpiryDays)",message="must set certificatesExpiryDays, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneRolloutBeforeSpec struct {
	// certificatesExpiryDays replaces a Machine whose certificates expire within this many days
	// (at least 7, so that the replacement has time to finish). The expiry is the Machine's
	// machine.cluster.x-k8s.io/certificates-expiry annotation (RFC3339), else its KubeadmConfig's,
	// else status.certificatesExpiryDate.
	// +optional
	// +kubebuilder:validation:Minimum=7
	// +kubebuilder:validation:Maximum=3650
	CertificatesExpiryDays int32 `json:"certificatesExpiryDays,omitempty"`
}

// KubeadmControlPlaneRolloutStrategy is how control plane Machines are replaced.
// +kubebuilder:validation:XValidation:rule="has(self.type) || has(self.rollingUpdate)",message="must set at least one of type or rollingUpdate, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneRolloutStrategy struct {
	// type of rollout; RollingUpdate is the only one.
	// +required
	// +kubebuilder:default=RollingUpdate
	Type KubeadmControlPlaneRolloutStrategyType `json:"type,omitempty"`

	// rollingUpdate bounds a RollingUpdate. Defaults to maxSurge 1.
	// +optional
	// +kubebuilder:default={maxSurge: 1}
	RollingUpdate KubeadmControlPlaneRolloutStrategyRollingUpdate `json:"rollingUpdate,omitempty,omitzero"`
}

// KubeadmControlPlaneRolloutStrategyRollingUpdate bounds a rolling update of the control plane.
// +kubebuilder:validation:XValidation:rule="has(self.maxSurge)",message="must set maxSurge, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneRolloutStrategyRollingUpdate struct {
	// maxSurge is how many Machines may exist above spec.replicas during a rollout: 1 (the
	// default) creates the new Machine before deleting an old one; 0 deletes first, for
	// infrastructure without room for an extra Machine, at the cost of one member less during the
	// rollout.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int && (self == 0 || self == 1)",message="maxSurge must be the number 0 or 1: a control plane is replaced one Machine at a time, either creating the new Machine first (1, the default) or deleting the old one first (0)"
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// KubeadmControlPlaneRemediationSpec configures how unhealthy control plane Machines are remediated.
// +kubebuilder:validation:XValidation:rule="has(self.maxRetry) || has(self.retryPeriodSeconds) || has(self.minHealthyPeriodSeconds)",message="must set at least one of maxRetry, retryPeriodSeconds or minHealthyPeriodSeconds, or be left out instead of written as an empty object ({})"
type KubeadmControlPlaneRemediationSpec struct {
	// maxRetry is how many times in a row a replacement Machine may itself be remediated (a retry)
	// before remediation stops. Unset means no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxRetry *int32 `json:"maxRetry,omitempty"`

	// retryPeriodSeconds is how long to wait before remediating a replacement Machine (a retry).
	// Unset means retry at once.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RetryPeriodSeconds *int32 `json:"retryPeriodSeconds,omitempty"`

	// minHealthyPeriodSeconds is how long a replacement Machine must stay healthy for its next
	// failure to count as unrelated (resetting the retry count). Defaults to 3600.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinHealthyPeriodSeconds *int32 `json:"minHealthyPeriodSeconds,omitempty"`
}

// KubeadmControlPlaneStatus is the observed state of a KubeadmControlPlane.
// +kubebuilder:validation:MinProperties=1
type KubeadmControlPlaneStatus struct {
	// conditions are the observations of the KubeadmControlPlane's state. Known types: Available,
	// Initialized, CertificatesAvailable, EtcdClusterHealthy, ControlPlaneComponentsHealthy,
	// MachinesReady, MachinesUpToDate, RollingOut, ScalingUp, ScalingDown, Remediating, Deleting,
	// Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization records the one-way milestones of the control plane.
	// These fields are part of the provider contract.
	// +optional
	Initialization KubeadmControlPlaneInitializationStatus `json:"initialization,omitempty,omitzero"`

	// selector selects the control plane Machines, in label-query form; the scale subresource
	// exposes it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Selector string `json:"selector,omitempty"`

	// replicas is the number of non-terminated control plane Machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of control plane Machines whose Ready condition is true.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of control plane Machines whose Available condition is true.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// upToDateReplicas is the number of control plane Machines whose UpToDate condition is true.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// version is the lowest Kubernetes version among the control plane Machines.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Version string `json:"version,omitempty"`

	// observedGeneration is the metadata.generation the controller last acted on.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// lastRemediation is the remediation in progress, else the latest one a control plane Machine
	// records (its controlplane.cluster.x-k8s.io/remediation-for annotation); it stays once those
	// Machines are gone.
	// +optional
	LastRemediation LastRemediationStatus `json:"lastRemediation,omitempty,omitzero"`
}

// LastRemediationStatus is a remediation of a control plane Machine.
type LastRemediationStatus struct {
	// machine is the name of the remediated Machine.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Machine string `json:"machine,omitempty"`

	// time is when the Machine was remediated (deleted to be replaced).
	// +required
	Time metav1.Time `json:"time,omitempty,omitzero"`

	// retryCount is how many remediations in a row came before this one: a replacement Machine
	// that fails within minHealthyPeriodSeconds is a retry of the remediation that created it.
	// +required
	// +kubebuilder:validation:Minimum=0
	RetryCount *int32 `json:"retryCount,omitempty"`
}

// KubeadmControlPlaneInitializationStatus records the one-way milestones of a control plane.
// +kubebuilder:validation:MinProperties=1
type KubeadmControlPlaneInitializationStatus struct {
	// controlPlaneInitialized becomes true once the control plane accepts requests (kubeadm init
	// finished on the first Machine); it never goes back to false. The Cluster controller copies it
	// to Cluster.status.initialization.controlPlaneInitialized.
	// +optional
	ControlPlaneInitialized *bool `json:"controlPlaneInitialized,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmcontrolplanes,shortName=kcp,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster the control plane belongs to"
// +kubebuilder:printcolumn:name="Initialized",type="boolean",JSONPath=".status.initialization.controlPlaneInitialized",description="Whether the control plane accepts requests"
// +kubebuilder:printcolumn:name="Available",type="string",JSONPath=`.status.conditions[?(@.type=="Available")].status`,description="Whether the control plane passes its availability checks"
// +kubebuilder:printcolumn:name="Desired",type="integer",JSONPath=".spec.replicas",description="Desired number of control plane Machines"
// +kubebuilder:printcolumn:name="Current",type="integer",JSONPath=".status.replicas",description="Current number of control plane Machines"
// +kubebuilder:printcolumn:name="Ready",type="integer",JSONPath=".status.readyReplicas",description="Control plane Machines with Ready condition true"
// +kubebuilder:printcolumn:name="Up-to-date",type="integer",JSONPath=".status.upToDateReplicas",description="Control plane Machines with UpToDate condition true"
// +kubebuilder:printcolumn:name="Paused",type="string",JSONPath=`.status.conditions[?(@.type=="Paused")].status`,description="Whether reconciliation is paused",priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the KubeadmControlPlane was created"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.version",description="Kubernetes version of the control plane"

// KubeadmControlPlane runs a Cluster's Kubernetes control plane on Machines bootstrapped with
// kubeadm, with etcd stacked on the same Machines (the default) or external.
type KubeadmControlPlane struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the control plane.
	// +required
	Spec KubeadmControlPlaneSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the control plane.
	// +optional
	Status KubeadmControlPlaneStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the KubeadmControlPlane's conditions, for shared condition helpers.
func (in *KubeadmControlPlane) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions replaces the KubeadmControlPlane's conditions, for shared condition helpers.
func (in *KubeadmControlPlane) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// KubeadmControlPlaneList is a list of KubeadmControlPlanes.
type KubeadmControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the KubeadmControlPlanes.
	Items []KubeadmControlPlane `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &KubeadmControlPlane{}, &KubeadmControlPlaneList{})
}
