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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

	// BeforeClusterUpgradeHookAnnotationPrefix: any annotation of a topology Cluster whose key
	// starts with it (e.g. before-upgrade.hook.cluster.cluster.x-k8s.io/my-tool) holds an upgrade
	// before it starts, as a blocking BeforeClusterUpgrade hook would, without calling any extension.
	BeforeClusterUpgradeHookAnnotationPrefix = "before-upgrade.hook.cluster.cluster.x-k8s.io"

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
	// manages the cluster infrastructure, so the provider must leave the object alone (upstream's
	// contract; Capstan's Docker provider does not honour it yet).
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

	// TaintsFromMachineAnnotation lists, as "key:effect,...", the Node taints of propagation
	// Always that were put there from the Machine's spec.taints, so that those later removed from
	// the Machine can be removed from the Node too. Its presence, even empty, also records that
	// the OnInitialization taints were added: they are added once, when it is first written.
	TaintsFromMachineAnnotation = "cluster.x-k8s.io/taints-from-machine"

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

// MachineTaint is a Node taint that Cluster API manages: corev1.Taint plus when it is put on the
// Node. Only taints listed on the Machine are added or removed by Cluster API; other components
// may manage other taints on the same Node.
type MachineTaint struct {
	// key of the taint: a qualified name (at most 63 characters) with an optional DNS subdomain
	// prefix (at most 253 characters) and "/", e.g. example.com/dedicated.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
	// +kubebuilder:validation:XValidation:rule="self != 'node.cluster.x-k8s.io/uninitialized' && self != 'node.cluster.x-k8s.io/outdated-revision'",messageExpression="'taint key \"' + self + '\" is managed by Cluster API itself and cannot be set on a Machine; use another key'"
	// +kubebuilder:validation:XValidation:rule="self.contains('/') ? (self.split('/')[0].size() <= 253 && self.split('/')[1].size() <= 63 && self.split('/').size() == 2) : self.size() <= 63",messageExpression="'taint key \"' + self + '\" is too long: the name after the optional \"prefix/\" may have at most 63 characters and the prefix at most 253'"
	Key string `json:"key,omitempty"`

	// value of the taint: a label value (at most 63 characters).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	Value string `json:"value,omitempty"`

	// effect of the taint on Pods that do not tolerate it: NoSchedule, PreferNoSchedule or NoExecute.
	// +required
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	Effect corev1.TaintEffect `json:"effect,omitempty"`

	// propagation says when the taint is put on the Node: Always keeps it there (re-added if
	// removed, removed when it leaves the Machine); OnInitialization adds it once, when the Node
	// joins, and leaves it alone afterwards.
	// +required
	Propagation MachineTaintPropagation `json:"propagation,omitempty"`
}

// MachineTaintPropagation says when a taint is put on the Node.
// +kubebuilder:validation:Enum=Always;OnInitialization
type MachineTaintPropagation string

const (
	// MachineTaintPropagationAlways keeps the taint on the Node for as long as the Machine lists it.
	MachineTaintPropagationAlways MachineTaintPropagation = "Always"

	// MachineTaintPropagationOnInitialization adds the taint when the Node joins, and never again.
	MachineTaintPropagationOnInitialization MachineTaintPropagation = "OnInitialization"
)

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
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$')",messageExpression="'kind \"' + self + '\" is not a kind: write the kind of the provider object, starting with a letter and made of letters, digits and dashes, e.g. DockerCluster'"
	Kind string `json:"kind,omitempty"`

	// name of the referenced object, a DNS subdomain in the same namespace as the referencing object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'name \"' + self + '\" is not an object name: use lowercase letters, digits, dashes and dots, starting and ending with a letter or digit, e.g. my-cluster'"
	Name string `json:"name,omitempty"`

	// apiGroup of the referenced object, e.g. infrastructure.cluster.x-k8s.io. The version is not part
	// of the reference: it is looked up from the contract label of the referenced kind's CRD.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",messageExpression="'apiGroup \"' + self + '\" is not an API group: write the group without a version, e.g. infrastructure.cluster.x-k8s.io (not infrastructure.cluster.x-k8s.io/v1beta2)'"
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
// +kubebuilder:object:generate=false
// +kubebuilder:validation:XValidation:rule="has(self.labels) || has(self.annotations)",message="metadata is empty: set labels or annotations (e.g. labels: {pool: workers}), or leave metadata out"
type ObjectMeta struct {
	// labels to put on the objects created from this template. Selectors of the owning object match
	// against them, so a MachineSet or MachineDeployment template must carry every label of its selector.
	// At most 64 labels, so that admission rules comparing them with the selector stay cheap; each value
	// must be a valid label value, or every object created from the template would be refused.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Labels map[string]LabelValue `json:"labels,omitempty"`

	// annotations to put on the objects created from this template.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// LabelValue is an alias, so that map[string]LabelValue stays a map[string]string for every caller:
// it only carries the schema, and its maxLength is what keeps CEL rules that compare or match label
// values within the apiserver's cost budget.

// LabelValue is a Kubernetes label value: at most 63 characters, empty or starting and ending with
// a letter or digit, with only letters, digits, '-', '_' and '.' in between.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:XValidation:rule="self.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')",messageExpression="'\"' + self + '\" is not a valid label value: use at most 63 letters, digits, dashes, underscores and dots, starting and ending with a letter or digit (e.g. workers-1.a), or an empty value'"
type LabelValue = string

// LabelSelector selects objects by their labels. It is metav1.LabelSelector, field for field, with
// the bounds and the operator enum that let admission rules check it against a template's labels:
// metav1.LabelSelector carries no maxItems, so a CEL rule walking its values would be refused at
// CRD install for its estimated cost.
// +kubebuilder:object:generate=false
// +structType=atomic
type LabelSelector struct {
	// matchLabels requires each key to be present with exactly this value.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`

	// matchExpressions are further requirements, all of which must hold.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one requirement of a LabelSelector.
// +kubebuilder:validation:XValidation:rule="(self.operator == 'In' || self.operator == 'NotIn') == (has(self.values) && size(self.values) > 0)",messageExpression="'operator ' + self.operator + ' ' + ((self.operator == 'In' || self.operator == 'NotIn') ? 'needs at least one value in values' : 'takes no values: remove values')"
type LabelSelectorRequirement struct {
	// key is the label key the requirement applies to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key,omitempty"`

	// operator is how the key's value is compared: In, NotIn, Exists or DoesNotExist.
	// +required
	Operator LabelSelectorOperator `json:"operator,omitempty"`

	// values for In and NotIn (at least one); must be empty for Exists and DoesNotExist.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	Values []string `json:"values,omitempty"`
}

// LabelSelectorOperator is the operator of a LabelSelectorRequirement.
// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
type LabelSelectorOperator string

// The operators a LabelSelectorRequirement may use, as in metav1.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// IsEmpty reports whether the selector has no requirement at all.
func (s *LabelSelector) IsEmpty() bool {
	return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// LabelSelectorFromMetav1 is the inverse of ToMetav1, for conversions from API versions that
// use metav1's selector.
func LabelSelectorFromMetav1(in metav1.LabelSelector) LabelSelector {
	var out LabelSelector
	if in.MatchLabels != nil {
		out.MatchLabels = make(map[string]string, len(in.MatchLabels))
		for k, v := range in.MatchLabels {
			out.MatchLabels[k] = v
		}
	}
	for _, e := range in.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, LabelSelectorRequirement{
			Key: e.Key, Operator: LabelSelectorOperator(e.Operator), Values: append([]string(nil), e.Values...),
		})
	}
	return out
}

// ToMetav1 returns the selector as a metav1.LabelSelector, for metav1.LabelSelectorAsSelector.
func (s *LabelSelector) ToMetav1() *metav1.LabelSelector {
	out := &metav1.LabelSelector{}
	if s.MatchLabels != nil {
		out.MatchLabels = make(map[string]string, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			out.MatchLabels[k] = v
		}
	}
	for _, e := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: append([]string(nil), e.Values...),
		})
	}
	return out
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
