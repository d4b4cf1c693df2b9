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
	"k8s.io/apimachinery/pkg/util/intstr"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// KubeadmControlPlaneSpec is upstream's v1beta1 KubeadmControlPlane spec.
type KubeadmControlPlaneSpec struct {
	// replicas is the number of control plane Machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// version is the Kubernetes version of the control plane.
	Version string `json:"version"`
	// machineTemplate is what the control plane Machines are created from.
	MachineTemplate KubeadmControlPlaneMachineTemplate `json:"machineTemplate"`
	// kubeadmConfigSpec is the kubeadm configuration of the control plane Machines.
	KubeadmConfigSpec bootstrapv1beta1.KubeadmConfigSpec `json:"kubeadmConfigSpec"`
	RolloutFields     `json:",inline"`
}

// RolloutFields are the rollout, remediation and naming settings the KubeadmControlPlane and its
// template share.
type RolloutFields struct {
	// rolloutBefore rolls a Machine out before its certificates expire.
	// +optional
	RolloutBefore *RolloutBefore `json:"rolloutBefore,omitempty"`
	// rolloutAfter rolls every Machine created before it out.
	// +optional
	RolloutAfter *metav1.Time `json:"rolloutAfter,omitempty"`
	// rolloutStrategy is how Machines are replaced.
	// +optional
	RolloutStrategy *RolloutStrategy `json:"rolloutStrategy,omitempty"`
	// remediationStrategy is how unhealthy Machines are remediated.
	// +optional
	RemediationStrategy *RemediationStrategy `json:"remediationStrategy,omitempty"`
	// machineNamingStrategy names the Machines.
	// +optional
	MachineNamingStrategy *MachineNamingStrategy `json:"machineNamingStrategy,omitempty"`
}

// KubeadmControlPlaneMachineTemplate is the template of the control plane Machines.
type KubeadmControlPlaneMachineTemplate struct {
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	// infrastructureRef is the infrastructure machine template the Machines are cloned from.
	InfrastructureRef corev1.ObjectReference `json:"infrastructureRef"`
	// +optional
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates  []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`
	MachineTimeouts `json:",inline"`
}

// MachineTimeouts are the deletion timeouts of the control plane Machines.
type MachineTimeouts struct {
	// +optional
	NodeDrainTimeout *metav1.Duration `json:"nodeDrainTimeout,omitempty"`
	// +optional
	NodeVolumeDetachTimeout *metav1.Duration `json:"nodeVolumeDetachTimeout,omitempty"`
	// +optional
	NodeDeletionTimeout *metav1.Duration `json:"nodeDeletionTimeout,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`
}

// RolloutBefore rolls Machines out before a deadline.
type RolloutBefore struct {
	// +optional
	CertificatesExpiryDays *int32 `json:"certificatesExpiryDays,omitempty"`
}

// RolloutStrategy is how Machines are replaced.
type RolloutStrategy struct {
	// +optional
	Type controlplanev1.KubeadmControlPlaneRolloutStrategyType `json:"type,omitempty"`
	// +optional
	RollingUpdate *RollingUpdate `json:"rollingUpdate,omitempty"`
}

// RollingUpdate bounds a rolling update.
type RollingUpdate struct {
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// RemediationStrategy is how unhealthy Machines are remediated.
type RemediationStrategy struct {
	// +optional
	MaxRetry *int32 `json:"maxRetry,omitempty"`
	// +optional
	RetryPeriod metav1.Duration `json:"retryPeriod,omitempty"`
	// +optional
	MinHealthyPeriod *metav1.Duration `json:"minHealthyPeriod,omitempty"`
}

// MachineNamingStrategy names the Machines.
type MachineNamingStrategy struct {
	// +optional
	Template string `json:"template,omitempty"`
}

// KubeadmControlPlaneStatus is upstream's v1beta1 KubeadmControlPlane status.
type KubeadmControlPlaneStatus struct {
	// +optional
	Selector string `json:"selector,omitempty"`
	// +optional
	Replicas int32 `json:"replicas"`
	// +optional
	Version *string `json:"version,omitempty"`
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`
	// +optional
	UnavailableReplicas int32 `json:"unavailableReplicas"`
	// +optional
	Initialized bool `json:"initialized"`
	// +optional
	Ready bool `json:"ready"`
	// +optional
	FailureReason string `json:"failureReason,omitempty"`
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`
	// lastRemediation is the latest remediation of a control plane Machine.
	// +optional
	LastRemediation *LastRemediationStatus `json:"lastRemediation,omitempty"`
	// +optional
	V1Beta2 *KubeadmControlPlaneV1Beta2Status `json:"v1beta2,omitempty"`
}

// LastRemediationStatus is upstream's v1beta1 record of a control plane remediation.
type LastRemediationStatus struct {
	// machine is the name of the remediated Machine.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Machine string `json:"machine"`
	// timestamp is when the Machine was remediated.
	Timestamp metav1.Time `json:"timestamp"`
	// retryCount is how many remediations in a row came before this one.
	RetryCount int32 `json:"retryCount"`
}

// KubeadmControlPlaneV1Beta2Status is the v1beta2 status shown at v1beta1.
type KubeadmControlPlaneV1Beta2Status struct {
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmcontrolplanes,shortName=kcp,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="controlplane.cluster.x-k8s.io/v1beta1 KubeadmControlPlane is deprecated; use controlplane.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster"
// +kubebuilder:printcolumn:name="Initialized",type=boolean,JSONPath=".status.initialized",description="This denotes whether or not the control plane has the uploaded kubeadm-config configmap"
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".status.replicas",description="Total number of non-terminated machines targeted by this control plane"
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=".spec.version",description="Kubernetes version associated with this control plane"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of KubeadmControlPlane"

// KubeadmControlPlane is a kubeadm control plane, read and written at v1beta1.
type KubeadmControlPlane struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Spec KubeadmControlPlaneSpec `json:"spec,omitempty"`
	// +optional
	Status KubeadmControlPlaneStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// KubeadmControlPlaneList is a list of KubeadmControlPlanes.
type KubeadmControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KubeadmControlPlane `json:"items"`
}

// KubeadmControlPlaneTemplateSpec is the template's spec.
type KubeadmControlPlaneTemplateSpec struct {
	Template KubeadmControlPlaneTemplateResource `json:"template"`
}

// KubeadmControlPlaneTemplateResource is the KubeadmControlPlane a template creates.
type KubeadmControlPlaneTemplateResource struct {
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta               `json:"metadata,omitempty"`
	Spec       KubeadmControlPlaneTemplateResourceSpec `json:"spec"`
}

// KubeadmControlPlaneTemplateResourceSpec is a KubeadmControlPlane spec without replicas,
// version and infrastructure reference (the ClusterClass supplies them).
type KubeadmControlPlaneTemplateResourceSpec struct {
	// +optional
	MachineTemplate *KubeadmControlPlaneTemplateMachineTemplate `json:"machineTemplate,omitempty"`
	// kubeadmConfigSpec is the kubeadm configuration of the control plane Machines.
	KubeadmConfigSpec bootstrapv1beta1.KubeadmConfigSpec `json:"kubeadmConfigSpec"`
	RolloutFields     `json:",inline"`
}

// KubeadmControlPlaneTemplateMachineTemplate is the template's Machine template.
type KubeadmControlPlaneTemplateMachineTemplate struct {
	// +optional
	ObjectMeta      clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	MachineTimeouts `json:",inline"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmcontrolplanetemplates,shortName=kcpt,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="controlplane.cluster.x-k8s.io/v1beta1 KubeadmControlPlaneTemplate is deprecated; use controlplane.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of KubeadmControlPlaneTemplate"

// KubeadmControlPlaneTemplate is a template for KubeadmControlPlanes, read and written at v1beta1.
type KubeadmControlPlaneTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Spec KubeadmControlPlaneTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// KubeadmControlPlaneTemplateList is a list of KubeadmControlPlaneTemplates.
type KubeadmControlPlaneTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KubeadmControlPlaneTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &KubeadmControlPlane{}, &KubeadmControlPlaneList{},
		&KubeadmControlPlaneTemplate{}, &KubeadmControlPlaneTemplateList{})
}
