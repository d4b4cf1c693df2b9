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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
)

// KubeadmConfigSpec is upstream's v1beta1 KubeadmConfigSpec: the kubeadm configuration and the
// cloud-init settings of a Machine.
type KubeadmConfigSpec struct {
	// clusterConfiguration is the kubeadm ClusterConfiguration.
	// +optional
	ClusterConfiguration *ClusterConfiguration `json:"clusterConfiguration,omitempty"`
	// initConfiguration is the kubeadm InitConfiguration.
	// +optional
	InitConfiguration *InitConfiguration `json:"initConfiguration,omitempty"`
	// joinConfiguration is the kubeadm JoinConfiguration.
	// +optional
	JoinConfiguration *JoinConfiguration `json:"joinConfiguration,omitempty"`
	// files to write on the machine.
	// +optional
	Files []File `json:"files,omitempty"`
	// diskSetup are the partitions and filesystems to set up.
	// +optional
	DiskSetup *DiskSetup `json:"diskSetup,omitempty"`
	// mounts are cloud-init mount entries.
	// +optional
	Mounts []MountPoints `json:"mounts,omitempty"`
	// bootCommands run very early in the boot process (cloud-init bootcmd).
	// +optional
	BootCommands []string `json:"bootCommands,omitempty"`
	// preKubeadmCommands run before kubeadm.
	// +optional
	PreKubeadmCommands []string `json:"preKubeadmCommands,omitempty"`
	// postKubeadmCommands run after kubeadm.
	// +optional
	PostKubeadmCommands []string `json:"postKubeadmCommands,omitempty"`
	// users to create on the machine.
	// +optional
	Users []User `json:"users,omitempty"`
	// ntp configures time synchronisation.
	// +optional
	NTP *NTP `json:"ntp,omitempty"`
	// format of the bootstrap data.
	// +optional
	Format bootstrapv1.Format `json:"format,omitempty"`
	// verbosity is kubeadm's --v.
	// +optional
	Verbosity *int32 `json:"verbosity,omitempty"`
	// useExperimentalRetryJoin has no effect (v1beta2 dropped it); it is kept as written.
	// +optional
	UseExperimentalRetryJoin bool `json:"useExperimentalRetryJoin,omitempty"`
	// ignition holds the settings of Ignition bootstrap data (format ignition).
	// +optional
	Ignition *IgnitionSpec `json:"ignition,omitempty"`
}

// KubeadmConfigStatus is upstream's v1beta1 KubeadmConfig status.
type KubeadmConfigStatus struct {
	// ready is true when the bootstrap data Secret exists.
	// +optional
	Ready bool `json:"ready"`
	// dataSecretName is the Secret holding the bootstrap data.
	// +optional
	DataSecretName *string `json:"dataSecretName,omitempty"`
	// failureReason is a terminal problem (Capstan reports none).
	// +optional
	FailureReason string `json:"failureReason,omitempty"`
	// failureMessage is a terminal problem (Capstan reports none).
	// +optional
	FailureMessage string `json:"failureMessage,omitempty"`
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// conditions are the v1beta1 conditions (Capstan keeps none).
	// +optional
	Conditions clusterv1beta1.Conditions `json:"conditions,omitempty"`
	// v1beta2 holds the v1beta2 conditions.
	// +optional
	V1Beta2 *KubeadmConfigV1Beta2Status `json:"v1beta2,omitempty"`
}

// KubeadmConfigV1Beta2Status is the v1beta2 status shown at v1beta1.
type KubeadmConfigV1Beta2Status struct {
	// conditions are the v1beta2 conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmconfigs,shortName=kc,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="bootstrap.cluster.x-k8s.io/v1beta1 KubeadmConfig is deprecated; use bootstrap.cluster.x-k8s.io/v1beta2"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of KubeadmConfig"

// KubeadmConfig is a Machine's kubeadm bootstrap configuration, read and written at v1beta1.
type KubeadmConfig struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Spec KubeadmConfigSpec `json:"spec,omitempty"`
	// +optional
	Status KubeadmConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// KubeadmConfigList is a list of KubeadmConfigs.
type KubeadmConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KubeadmConfig `json:"items"`
}

// KubeadmConfigTemplateSpec is the template's spec.
type KubeadmConfigTemplateSpec struct {
	// template is what each KubeadmConfig is created from.
	Template KubeadmConfigTemplateResource `json:"template"`
}

// KubeadmConfigTemplateResource is the KubeadmConfig a template creates.
type KubeadmConfigTemplateResource struct {
	// metadata goes onto the created KubeadmConfigs.
	// +optional
	ObjectMeta clusterv1beta1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the created KubeadmConfigs' spec.
	// +optional
	Spec KubeadmConfigSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kubeadmconfigtemplates,shortName=kct,scope=Namespaced,categories=cluster-api
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="bootstrap.cluster.x-k8s.io/v1beta1 KubeadmConfigTemplate is deprecated; use bootstrap.cluster.x-k8s.io/v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time duration since creation of KubeadmConfigTemplate"

// KubeadmConfigTemplate is a template for KubeadmConfigs, read and written at v1beta1.
type KubeadmConfigTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Spec KubeadmConfigTemplateSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// KubeadmConfigTemplateList is a list of KubeadmConfigTemplates.
type KubeadmConfigTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KubeadmConfigTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &KubeadmConfig{}, &KubeadmConfigList{}, &KubeadmConfigTemplate{}, &KubeadmConfigTemplateList{})
}
