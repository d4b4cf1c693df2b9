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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ClusterClassVariable defines a variable Clusters of the class may set and patches may read.
type ClusterClassVariable struct {
	// name of the variable, used in Cluster.spec.topology.variables and in patches. It cannot be
	// "builtin" (reserved for builtin variables) nor contain a dot (patches address nested fields
	// with dots).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self != 'builtin'",message="variable name \"builtin\" is reserved for the builtin variables patches can read (builtin.cluster.name, ...): choose another name"
	// +kubebuilder:validation:XValidation:rule="!self.contains('.')",messageExpression="'variable name \"' + self + '\" contains a dot: patches address nested fields with dots (myVar.field), so a name cannot contain one; use e.g. \"' + self.replace('.', '-') + '\"'"
	Name string `json:"name,omitempty"`

	// required says whether every Cluster of the class must set the variable. It applies to the
	// top-level value only; nested fields are required through the schema.
	// +required
	Required *bool `json:"required,omitempty"`

	// deprecatedV1Beta1Metadata is the metadata of the variable as v1beta1 had it; prefer x-metadata
	// in the schema.
	// +optional
	DeprecatedV1Beta1Metadata ClusterClassVariableMetadata `json:"deprecatedV1Beta1Metadata,omitempty,omitzero"`

	// schema of the variable's values.
	// +required
	Schema VariableSchema `json:"schema,omitempty,omitzero"`
}

// ClusterClassVariableMetadata is free-form metadata for tools, kept from v1beta1.
// +kubebuilder:validation:MinProperties=1
type ClusterClassVariableMetadata struct {
	// labels to organise variables.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations hold arbitrary data for tools.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// VariableSchema is the schema of a variable.
type VariableSchema struct {
	// openAPIV3Schema is the variable's schema: the subset of a CRD's OpenAPI v3 schema listed in
	// JSONSchemaProps. It must be structural, as a CRD schema; the ClusterClass controller checks it
	// and reports VariablesReady False with the field path when it is not.
	// +required
	OpenAPIV3Schema JSONSchemaProps `json:"openAPIV3Schema,omitempty,omitzero"`
}

// JSONSchemaProps is the subset of a CRD's OpenAPI v3 schema that variables may use. Nested schemas
// are schemaless in the CRD (a recursive schema cannot be expressed), so the ClusterClass controller,
// not admission, checks them.
// +kubebuilder:validation:MinProperties=1
type JSONSchemaProps struct {
	// description of the variable or field.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Description string `json:"description,omitempty"`

	// example value.
	// +optional
	Example *apiextensionsv1.JSON `json:"example,omitempty"`

	// type of the value: object, array, string, integer, number or boolean.
	// +optional
	// +kubebuilder:validation:Enum=object;array;string;integer;number;boolean
	Type string `json:"type,omitempty"`

	// properties of an object; cannot be combined with additionalProperties.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Properties map[string]JSONSchemaProps `json:"properties,omitempty"`

	// additionalProperties is the schema of a map's values; cannot be combined with properties.
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
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
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
	UniqueItems *bool `json:"uniqueItems,omitempty"`

	// format of a string, as in CRD schemas (e.g. uri, ipv4, date-time); unknown formats are ignored.
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

	// pattern a string must match (ECMA 262 regular expression).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Pattern string `json:"pattern,omitempty"`

	// maximum of an integer or number.
	// +optional
	Maximum *int64 `json:"maximum,omitempty"`

	// exclusiveMaximum makes maximum exclusive.
	// +optional
	ExclusiveMaximum *bool `json:"exclusiveMaximum,omitempty"`

	// minimum of an integer or number.
	// +optional
	Minimum *int64 `json:"minimum,omitempty"`

	// exclusiveMinimum makes minimum exclusive.
	// +optional
	ExclusiveMinimum *bool `json:"exclusiveMinimum,omitempty"`

	// x-kubernetes-preserve-unknown-fields keeps fields the schema does not declare.
	// +optional
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`

	// enum lists the allowed values.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Enum []apiextensionsv1.JSON `json:"enum,omitempty"`

	// default value; a top-level default adds the variable to Clusters that leave it out.
	// +optional
	Default *apiextensionsv1.JSON `json:"default,omitempty"`

	// x-kubernetes-validations are CEL rules the value must pass, as in CRD schemas.
	// +optional
	// +listType=map
	// +listMapKey=rule
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty"`

	// x-metadata is metadata for tools, on the variable or any nested field.
	// +optional
	XMetadata VariableSchemaMetadata `json:"x-metadata,omitempty,omitzero"`

	// x-kubernetes-int-or-string allows an integer or a string.
	// +optional
	XIntOrString *bool `json:"x-kubernetes-int-or-string,omitempty"`

	// allOf: the value must match every schema.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	AllOf []JSONSchemaProps `json:"allOf,omitempty"`

	// oneOf: the value must match exactly one schema.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	OneOf []JSONSchemaProps `json:"oneOf,omitempty"`

	// anyOf: the value must match at least one schema.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty"`

	// not: the value must not match the schema.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Not *JSONSchemaProps `json:"not,omitempty"`
}

// VariableSchemaMetadata is metadata for tools on a variable or a nested field.
// +kubebuilder:validation:MinProperties=1
type VariableSchemaMetadata struct {
	// labels to organise variables; keys and values must be valid label keys and values.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations hold arbitrary data for tools.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ValidationRule is a CEL rule, as x-kubernetes-validations in a CRD schema.
type ValidationRule struct {
	// rule is the CEL expression; self is the value at the rule's place in the schema, oldSelf
	// the previous value (a transition rule, checked on updates only).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Rule string `json:"rule,omitempty"`

	// message shown when the rule fails; default "failed rule: <rule>".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`

	// messageExpression is a CEL expression yielding the message.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	MessageExpression string `json:"messageExpression,omitempty"`

	// reason reported when the rule fails.
	// +optional
	// +kubebuilder:validation:Enum=FieldValueInvalid;FieldValueForbidden;FieldValueRequired;FieldValueDuplicate
	// +kubebuilder:default=FieldValueInvalid
	Reason FieldValueErrorReason `json:"reason,omitempty"`

	// fieldPath, relative to the rule's place, reported when the rule fails, e.g. ".spec.port".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	FieldPath string `json:"fieldPath,omitempty"`
}

// FieldValueErrorReason is the machine-readable reason of a failed validation rule.
type FieldValueErrorReason string

// The reasons a ValidationRule may report.
const (
	FieldValueRequired  FieldValueErrorReason = "FieldValueRequired"
	FieldValueDuplicate FieldValueErrorReason = "FieldValueDuplicate"
	FieldValueInvalid   FieldValueErrorReason = "FieldValueInvalid"
	FieldValueForbidden FieldValueErrorReason = "FieldValueForbidden"
)

// ClusterClassPatch changes the class's templates for a Cluster, from its variables.
// +kubebuilder:validation:XValidation:rule="has(self.definitions) != has(self.external)",message="a patch needs exactly one of definitions (inline JSON patches) or external (a Runtime Extension): set one and remove the other"
type ClusterClassPatch struct {
	// name of the patch, unique in the class.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// description of the patch.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Description string `json:"description,omitempty"`

	// enabledIf is a Go template over the variables; the patch applies only where it renders
	// "true". Unset means always.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	EnabledIf string `json:"enabledIf,omitempty"`

	// definitions are the inline patches, applied in order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Definitions []PatchDefinition `json:"definitions,omitempty"`

	// external names the Runtime Extensions of the patch: GeneratePatches, ValidateTopology and
	// DiscoverVariables handlers.
	// +optional
	External *ExternalPatchDefinition `json:"external,omitempty"`
}

// PatchDefinition is a set of JSON patches for the templates a selector picks.
type PatchDefinition struct {
	// selector picks the templates to patch.
	// +required
	Selector PatchSelector `json:"selector,omitempty,omitzero"`

	// jsonPatches are applied in order to each selected template.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	JSONPatches []JSONPatch `json:"jsonPatches,omitempty"`
}

// PatchSelector picks templates by apiVersion and kind (both must match the class's reference
// exactly) and by where the class references them.
type PatchSelector struct {
	// apiVersion of the templates, group/version.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[a-z]([-a-z0-9]*[a-z0-9])?$`
	APIVersion string `json:"apiVersion,omitempty"`

	// kind of the templates.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind,omitempty"`

	// matchResources says where the templates are referenced; the entries are ORed.
	// +required
	MatchResources PatchSelectorMatch `json:"matchResources,omitempty,omitzero"`
}

// PatchSelectorMatch picks templates by where the class references them.
// +kubebuilder:validation:MinProperties=1
type PatchSelectorMatch struct {
	// controlPlane picks the control plane template and its machineInfrastructure template.
	// +optional
	ControlPlane *bool `json:"controlPlane,omitempty"`

	// infrastructureCluster picks the InfraCluster template.
	// +optional
	InfrastructureCluster *bool `json:"infrastructureCluster,omitempty"`

	// machineDeploymentClass picks the templates of the named MachineDeployment classes.
	// +optional
	MachineDeploymentClass *PatchSelectorMatchClasses `json:"machineDeploymentClass,omitempty"`

	// machinePoolClass picks the templates of the named MachinePool classes.
	// +optional
	MachinePoolClass *PatchSelectorMatchClasses `json:"machinePoolClass,omitempty"`
}

// PatchSelectorMatchClasses picks worker classes by name.
type PatchSelectorMatchClasses struct {
	// names of the classes; "*" matches all, "prefix*" and "*suffix" match by prefix or suffix.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:items:Pattern=`^([*]|[*]?[^*]+|[^*]+[*])$`
	Names []string `json:"names,omitempty"`
}

// JSONPatch is one RFC 6902 operation on a template. Admission checks what a schema pattern can
// check cheaply: a class holds up to 1000 x 100 x 100 of them, too many for per-item CEL rules in
// the apiserver's cost budget, and value is schemaless (invisible to CEL). The rules that depend on
// op (add and replace need exactly one of value or valueFrom, remove neither; replace and remove
// take no array index) are checked by the ClusterClass controller.
type JSONPatch struct {
	// op is the operation: add, replace or remove.
	// +required
	// +kubebuilder:validation:Enum=add;replace;remove
	Op string `json:"op,omitempty"`

	// path is the JSON pointer of the field to change, e.g. /spec/template/spec/image: only a
	// template's spec may be patched, and the only array indexes are 0 (prepend) and - (append).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^/spec(/(0|[^/]*[^/0-9][^/]*))+$`
	Path string `json:"path,omitempty"`

	// value to add or replace with.
	// +optional
	Value *apiextensionsv1.JSON `json:"value,omitempty"`

	// valueFrom computes the value from variables.
	// +optional
	ValueFrom *JSONPatchValue `json:"valueFrom,omitempty"`
}

// JSONPatchValue computes a patch value from variables: exactly one of variable or template.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=1
type JSONPatchValue struct {
	// variable whose value is used: a variable name or a path into it (myVar.field, arr[0]), or a
	// builtin such as builtin.cluster.name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Variable string `json:"variable,omitempty"`

	// template is a Go template over the variables whose output, read as YAML or JSON, is the value.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10240
	Template string `json:"template,omitempty"`
}

// ExternalPatchDefinition names the Runtime Extensions of an external patch.
// +kubebuilder:validation:XValidation:rule="has(self.generatePatchesExtension) || has(self.validateTopologyExtension)",message="an external patch needs generatePatchesExtension or validateTopologyExtension (or both)"
type ExternalPatchDefinition struct {
	// generatePatchesExtension names the extension that generates patches.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	GeneratePatchesExtension string `json:"generatePatchesExtension,omitempty"`

	// validateTopologyExtension names the extension that validates the topology.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ValidateTopologyExtension string `json:"validateTopologyExtension,omitempty"`

	// discoverVariablesExtension names the extension that returns variable definitions.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	DiscoverVariablesExtension string `json:"discoverVariablesExtension,omitempty"`

	// settings passed to the extensions; they win over the ExtensionConfig's.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
}
