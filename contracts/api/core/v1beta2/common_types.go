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
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Labels shared by core objects and provider objects.
const (
	// ClusterNameLabel is set on every object that belongs to a Cluster: Machines, MachineSets,
	// MachineDeployments, provider objects and the Secrets the controllers create. Providers use it to
	// find the owning Cluster (util.GetClusterFromMetadata in upstream terms).
	ClusterNameLabel = "cluster.x-k8s.io/cluster-name"

	// ProviderNameLabel is set on every component of a provider's manifest so that a provider's
	// objects can be listed (and upgraded or deleted) together.
	ProviderNameLabel = "cluster.x-k8s.io/provider"

	// WatchLabel lets several controller instances share one management cluster: a controller started
	// with a watch-filter value reconciles only objects whose WatchLabel carries that value.
	WatchLabel = "cluster.x-k8s.io/watch-filter"

	// InterruptibleLabel marks Nodes that run on interruptible (spot) instances. Infrastructure
	// providers report it; the Machine controller copies it to the Node.
	InterruptibleLabel = "cluster.x-k8s.io/interruptible"
)

// Annotations shared by core objects and provider objects.
const (
	// PausedAnnotation, when present on any Cluster API object, stops controllers from reconciling that
	// object (the object then reports the Paused condition). Cluster.spec.paused pauses a whole Cluster.
	PausedAnnotation = "cluster.x-k8s.io/paused"

	// DisableMachineCreateAnnotation set to "true" on a MachineSet stops it from creating Machines. The
	// MachineDeployment controller uses it for the OnDelete strategy, where only user deletions make
	// room for new Machines.
	DisableMachineCreateAnnotation = "cluster.x-k8s.io/disable-machine-create"

	// DeleteMachineAnnotation marks a Machine to be deleted first when its MachineSet or control plane
	// scales down, whatever the deletion order.
	DeleteMachineAnnotation = "cluster.x-k8s.io/delete-machine"

	// RemediateMachineAnnotation asks MachineHealthChecks to treat a Machine as unhealthy, so that it is
	// remediated like any other unhealthy Machine.
	RemediateMachineAnnotation = "cluster.x-k8s.io/remediate-machine"

	// MachineSkipRemediationAnnotation excludes a Machine from MachineHealthCheck remediation.
	MachineSkipRemediationAnnotation = "cluster.x-k8s.io/skip-remediation"

	// TemplateClonedFromNameAnnotation is set on objects cloned from a template (e.g. an InfraMachine
	// cloned from an InfraMachineTemplate) and records the template's name.
	TemplateClonedFromNameAnnotation = "cluster.x-k8s.io/cloned-from-name"

	// TemplateClonedFromGroupKindAnnotation records the group-kind of the template an object was cloned from.
	TemplateClonedFromGroupKindAnnotation = "cluster.x-k8s.io/cloned-from-groupkind"

	// ManagedByAnnotation on an InfraCluster tells the infrastructure provider that an external system
	// manages the cluster infrastructure, so the provider must leave the object alone.
	ManagedByAnnotation = "cluster.x-k8s.io/managed-by"

	// ReplicasManagedByAnnotation tells the core that something other than Cluster API (e.g. an
	// autoscaler) owns the replica count of a MachinePool.
	ReplicasManagedByAnnotation = "cluster.x-k8s.io/replicas-managed-by"
)

// Annotations the Machine controller sets on workload-cluster Nodes, so that a Node can be traced
// back to its Machine and Cluster from inside the workload cluster.
const (
	// ClusterNameAnnotation records the name of the Cluster a Node belongs to.
	ClusterNameAnnotation = "cluster.x-k8s.io/cluster-name"

	// ClusterNamespaceAnnotation records the namespace of the Cluster a Node belongs to.
	ClusterNamespaceAnnotation = "cluster.x-k8s.io/cluster-namespace"

	// MachineAnnotation records the name of the Machine a Node belongs to.
	MachineAnnotation = "cluster.x-k8s.io/machine"

	// OwnerKindAnnotation records the kind of the Machine's owner (e.g. MachineSet).
	OwnerKindAnnotation = "cluster.x-k8s.io/owner-kind"

	// OwnerNameAnnotation records the name of the Machine's owner.
	OwnerNameAnnotation = "cluster.x-k8s.io/owner-name"

	// LabelsFromMachineAnnotation lists the Node labels that were copied from the Machine, so that
	// labels later removed from the Machine can be removed from the Node too.
	LabelsFromMachineAnnotation = "cluster.x-k8s.io/labels-from-machine"

	// AnnotationsFromMachineAnnotation lists the Node annotations that were copied from the Machine.
	AnnotationsFromMachineAnnotation = "cluster.x-k8s.io/annotations-from-machine"
)

// ClusterSecretType is the type of the Secrets that Cluster API components create (kubeconfig,
// certificates, bootstrap data). Controllers use it to tell their own Secrets from user-supplied ones
// (e.g. bring-your-own certificates), which they must never rotate or delete.
const ClusterSecretType corev1.SecretType = "cluster.x-k8s.io/secret" //nolint:gosec // a type name, not a credential

// TemplateSuffix is the kind suffix of template types: the template of DevMachine is DevMachineTemplate.
const TemplateSuffix = "Template"

// NodeUninitializedTaint may be put on new Nodes by a bootstrap provider so that no workload lands on
// a Node before Cluster API has synced the Machine's labels to it; the Machine controller removes it
// after the first label sync.
var NodeUninitializedTaint = corev1.Taint{
	Key:    "node.cluster.x-k8s.io/uninitialized",
	Effect: corev1.TaintEffectNoSchedule,
}

// NodeOutdatedRevisionTaint may be put on Nodes of Machines that a rolling update is about to replace,
// so that Pods drained from one old Node are not scheduled onto another old Node.
var NodeOutdatedRevisionTaint = corev1.Taint{
	Key:    "node.cluster.x-k8s.io/outdated-revision",
	Effect: corev1.TaintEffectPreferNoSchedule,
}

// ConditionPolarity says whether a condition is healthy when True (Positive) or when False (Negative).
// +kubebuilder:validation:Enum=Positive;Negative
type ConditionPolarity string

const (
	// PositivePolarityCondition is a condition whose normal state is True, e.g. NetworkReady.
	PositivePolarityCondition ConditionPolarity = "Positive"

	// NegativePolarityCondition is a condition whose normal state is False, e.g. MemoryPressure.
	NegativePolarityCondition ConditionPolarity = "Negative"
)

// ContractVersionedObjectReference points at a provider object (InfraCluster, InfraMachine,
// BootstrapConfig, ControlPlane) in the same namespace. It carries no version: the core reads the
// version to use from the contract label on the provider's CRD, so provider upgrades never require
// rewriting references.
type ContractVersionedObjectReference struct {
	// kind of the referenced object, e.g. DevMachine.
	// It must start with a letter and contain only letters, digits and '-'.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind,omitempty"`

	// name of the referenced object, a DNS subdomain in the same namespace as the referencing object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`

	// apiGroup of the referenced object, e.g. infrastructure.cluster.x-k8s.io. The version is not part
	// of the reference: it is looked up from the contract label of the referenced kind's CRD.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	APIGroup string `json:"apiGroup,omitempty"`
}

// IsDefined reports whether any field of the reference is set; an unset reference is the zero value
// because references are embedded by value with omitzero.
func (r *ContractVersionedObjectReference) IsDefined() bool {
	if r == nil {
		return false
	}
	return r.Kind != "" || r.Name != "" || r.APIGroup != ""
}

// GroupKind returns the group and kind of the referenced object.
func (r *ContractVersionedObjectReference) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.APIGroup, Kind: r.Kind}
}

// ObjectMeta is the subset of metav1.ObjectMeta that templates may set: labels and annotations.
// A full metav1.ObjectMeta would expose read-only fields such as creationTimestamp in the template
// schema, which users could set to no effect.
// +kubebuilder:validation:MinProperties=1
type ObjectMeta struct {
	// labels to put on the objects created from this template. Selectors of the owning object match
	// against them, so a MachineSet or MachineDeployment template must carry every label of its selector.
	// At most 64 labels, so that admission rules comparing them with the selector stay cheap.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Labels map[string]string `json:"labels,omitempty"`

	// annotations to put on the objects created from this template.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// MachineAddressType is the kind of a Machine address.
// +kubebuilder:validation:Enum=Hostname;ExternalIP;InternalIP;ExternalDNS;InternalDNS
type MachineAddressType string

// The address types an infrastructure provider may report.
const (
	MachineHostName    MachineAddressType = "Hostname"
	MachineExternalIP  MachineAddressType = "ExternalIP"
	MachineInternalIP  MachineAddressType = "InternalIP"
	MachineExternalDNS MachineAddressType = "ExternalDNS"
	MachineInternalDNS MachineAddressType = "InternalDNS"
)

// MachineAddress is one address of a Machine, as reported by its infrastructure provider.
type MachineAddress struct {
	// type of the address: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.
	// +required
	Type MachineAddressType `json:"type,omitempty"`

	// address is the address itself: a host name, an IP address or a DNS name, depending on type.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Address string `json:"address,omitempty"`
}

// MachineAddresses is the list of addresses of a Machine.
// +kubebuilder:validation:MaxItems=128
// +listType=atomic
type MachineAddresses []MachineAddress
