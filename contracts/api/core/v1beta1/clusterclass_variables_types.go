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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// ClusterClassVariable is upstream's v1beta1 variable definition.
type ClusterClassVariable struct {
	// name of the variable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// required says whether a Cluster must give a value.
	// +required
	Required bool `json:"required"`

	// metadata of the variable (deprecated upstream; v1beta2's deprecatedV1Beta1Metadata).
	// +optional
	Metadata ClusterClassVariableMetadata `json:"metadata,omitempty"`

	// schema of the variable.
	// +required
	Schema VariableSchema `json:"schema"`
}

// ClusterClassVariableMetadata is the deprecated metadata of a variable.
type ClusterClassVariableMetadata struct {
	// labels of the variable.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations of the variable.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// VariableSchema holds a variable's schema.
type VariableSchema struct {
	// openAPIV3Schema is the schema, a subset of a CRD's.
	// +required
	OpenAPIV3Schema JSONSchemaProps `json:"openAPIV3Schema"`
}

// JSONSchemaProps is upstream's v1beta1 variable schema: booleans where v1beta2 has pointers
// and x-metadata as a pointer.
type JSONSchemaProps struct {
	// description of the value.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Description string `json:"description,omitempty"`

	// example of a value.
	// +optional
	Example *apiextensionsv1.JSON `json:"example,omitempty"`

	// type of the value: object, array, string, integer, number or boolean.
	// +optional
	// +kubebuilder:validation:Enum=object;array;string;integer;number;boolean
	Type string `json:"type,omitempty"`

	// properties of an object.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Properties map[string]JSONSchemaProps `json:"properties,omitempty"`

	// additionalProperties is the schema of a map's values.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	AdditionalProperties *JSONSchemaProps `json:"additionalProperties,omitempty"`

	// maxProperties of an object.
	// +optional
	MaxProperties *int64 `json:"maxProperties,omitempty"`

	// minProperties of an object.
	// +optional
	MinProperties *int64 `json:"minProperties,omitempty"`

	// required fields of an object.
	// +optional
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Required []string `json:"required,omitempty"`

	// items is the schema of an array's items.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Items *JSONSchemaProps `json:"items,omitempty"`

	// maxItems of an array.
	// +optional
	MaxItems *int64 `json:"maxItems,omitempty"`

	// minItems of an array.
	// +optional
	MinItems *int64 `json:"minItems,omitempty"`

	// uniqueItems requires an array's items to differ.
	// +optional
	UniqueItems bool `json:"uniqueItems,omitempty"`

	// format of a string.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	Format string `json:"format,omitempty"`

	// maxLength of a string.
	// +optional
	MaxLength *int64 `json:"maxLength,omitempty"`

	// minLength of a string.
	// +optional
	MinLength *int64 `json:"minLength,omitempty"`

	// pattern a string must match.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Pattern string `json:"pattern,omitempty"`

	// maximum of a number.
	// +optional
	Maximum *int64 `json:"maximum,omitempty"`

	// exclusiveMaximum makes maximum exclusive.
	// +optional
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty"`

	// minimum of a number.
	// +optional
	Minimum *int64 `json:"minimum,omitempty"`

	// exclusiveMinimum makes minimum exclusive.
	// +optional
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty"`

	// x-kubernetes-preserve-unknown-fields keeps fields the schema does not name.
	// +optional
	XPreserveUnknownFields bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`

	// enum lists the allowed values.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	Enum []apiextensionsv1.JSON `json:"enum,omitempty"`

	// default value.
	// +optional
	Default *apiextensionsv1.JSON `json:"default,omitempty"`

	// x-kubernetes-validations are CEL rules on the value.
	// +optional
	// +listType=map
	// +listMapKey=rule
	// +kubebuilder:validation:MaxItems=100
	XValidations []clusterv1.ValidationRule `json:"x-kubernetes-validations,omitempty"`

	// x-metadata of the variable or field.
	// +optional
	XMetadata *VariableSchemaMetadata `json:"x-metadata,omitempty"`

	// x-kubernetes-int-or-string allows an integer or a string.
	// +optional
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`

	// allOf subschemas the value must all match.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	AllOf []JSONSchemaProps `json:"allOf,omitempty"`

	// oneOf subschemas the value must match exactly one of.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	OneOf []JSONSchemaProps `json:"oneOf,omitempty"`

	// anyOf subschemas the value must match one or more of.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty"`

	// not is a subschema the value must not match.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Not *JSONSchemaProps `json:"not,omitempty"`
}

// VariableSchemaMetadata is the x-metadata of a variable or a field of one.
type VariableSchemaMetadata struct {
	// labels of the variable.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations of the variable.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ClusterClassPatch is upstream's v1beta1 patch.
type ClusterClassPatch struct {
	// name of the patch.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// description of the patch.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Description string `json:"description,omitempty"`

	// enabledIf is a Go template; the patch applies when it renders "true".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	EnabledIf *string `json:"enabledIf,omitempty"`

	// definitions are inline patches.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	Definitions []PatchDefinition `json:"definitions,omitempty"`

	// external is a patch from a runtime extension.
	// +optional
	External *ExternalPatchDefinition `json:"external,omitempty"`
}

// PatchDefinition is a selector and the JSON patches for the templates it selects.
type PatchDefinition struct {
	// selector says which templates are patched.
	// +required
	Selector PatchSelector `json:"selector"`

	// jsonPatches to apply, in order.
	// +required
	// +kubebuilder:validation:MaxItems=100
	JSONPatches []JSONPatch `json:"jsonPatches"`
}

// PatchSelector selects templates by apiVersion, kind and where they are referenced.
type PatchSelector struct {
	// apiVersion of the templates.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	APIVersion string `json:"apiVersion"`

	// kind of the templates.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Kind string `json:"kind"`

	// matchResources says where the templates are referenced.
	// +required
	MatchResources PatchSelectorMatch `json:"matchResources"`
}

// PatchSelectorMatch selects templates by where the class references them.
type PatchSelectorMatch struct {
	// controlPlane selects the control plane's templates.
	// +optional
	ControlPlane bool `json:"controlPlane,omitempty"`

	// infrastructureCluster selects the infrastructure cluster template.
	// +optional
	InfrastructureCluster bool `json:"infrastructureCluster,omitempty"`

	// machineDeploymentClass selects the templates of these MachineDeployment classes.
	// +optional
	MachineDeploymentClass *PatchSelectorMatchMachineDeploymentClass `json:"machineDeploymentClass,omitempty"`

	// machinePoolClass selects the templates of these MachinePool classes.
	// +optional
	MachinePoolClass *PatchSelectorMatchMachinePoolClass `json:"machinePoolClass,omitempty"`
}

// PatchSelectorMatchMachineDeploymentClass names MachineDeployment classes.
type PatchSelectorMatchMachineDeploymentClass struct {
	// names of the classes.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Names []string `json:"names,omitempty"`
}

// PatchSelectorMatchMachinePoolClass names MachinePool classes.
type PatchSelectorMatchMachinePoolClass struct {
	// names of the classes.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Names []string `json:"names,omitempty"`
}

// JSONPatch is one JSON patch operation.
type JSONPatch struct {
	// op is add, replace or remove.
	// +required
	// +kubebuilder:validation:Enum=add;replace;remove
	Op string `json:"op"`

	// path to patch, under /spec.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Path string `json:"path"`

	// value to write.
	// +optional
	Value *apiextensionsv1.JSON `json:"value,omitempty"`

	// valueFrom computes the value to write.
	// +optional
	ValueFrom *JSONPatchValue `json:"valueFrom,omitempty"`
}

// JSONPatchValue is a variable or a template the value of a patch comes from.
type JSONPatchValue struct {
	// variable whose value is written.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Variable *string `json:"variable,omitempty"`

	// template rendering the value.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10240
	Template *string `json:"template,omitempty"`
}

// ExternalPatchDefinition names the runtime extensions of an external patch.
type ExternalPatchDefinition struct {
	// generateExtension generates patches.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	GenerateExtension *string `json:"generateExtension,omitempty"`

	// validateExtension validates the topology.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ValidateExtension *string `json:"validateExtension,omitempty"`

	// discoverVariablesExtension discovers variables.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	DiscoverVariablesExtension *string `json:"discoverVariablesExtension,omitempty"`

	// settings passed to the extensions.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
}
