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
	"maps"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// Variables and patches of a ClusterClass. v1beta1 has booleans where v1beta2 has pointers
// (uniqueItems, exclusiveMaximum/Minimum, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-int-or-string, matchResources.controlPlane/infrastructureCluster,
// definitionsConflict): going up, false is unset unless the recorded v1beta2 value (matched by
// variable name, property name, list index, patch name) was an explicit false, as upstream.
// required is the other way round: v1beta2 requires it, so it is always set unless recorded unset.

func clusterClassVariableUp(in *ClusterClassVariable, restored *clusterv1.ClusterClassVariable, recorded bool) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{
		Name:                      in.Name,
		Required:                  requiredUp(in.Required, restored.Required, recorded),
		DeprecatedV1Beta1Metadata: clusterv1.ClusterClassVariableMetadata{Labels: maps.Clone(in.Metadata.Labels), Annotations: maps.Clone(in.Metadata.Annotations)},
		Schema:                    clusterv1.VariableSchema{OpenAPIV3Schema: schemaUp(&in.Schema.OpenAPIV3Schema, &restored.Schema.OpenAPIV3Schema)},
	}
}

func clusterClassVariableDown(in *clusterv1.ClusterClassVariable) ClusterClassVariable {
	return ClusterClassVariable{
		Name:     in.Name,
		Required: conversion.Deref(in.Required),
		Metadata: ClusterClassVariableMetadata{Labels: maps.Clone(in.DeprecatedV1Beta1Metadata.Labels), Annotations: maps.Clone(in.DeprecatedV1Beta1Metadata.Annotations)},
		Schema:   VariableSchema{OpenAPIV3Schema: schemaDown(&in.Schema.OpenAPIV3Schema)},
	}
}

func statusVariableUp(in *ClusterClassStatusVariable, restored *clusterv1.ClusterClassStatusVariable) clusterv1.ClusterClassStatusVariable {
	out := clusterv1.ClusterClassStatusVariable{Name: in.Name, DefinitionsConflict: conversion.BoolIntent(in.DefinitionsConflict, restored.DefinitionsConflict)}
	for i, d := range in.Definitions {
		var was clusterv1.ClusterClassStatusVariableDefinition
		recorded := i < len(restored.Definitions)
		if recorded {
			was = restored.Definitions[i]
		}
		out.Definitions = append(out.Definitions, clusterv1.ClusterClassStatusVariableDefinition{
			From:                      d.From,
			Required:                  requiredUp(d.Required, was.Required, recorded),
			DeprecatedV1Beta1Metadata: clusterv1.ClusterClassVariableMetadata{Labels: maps.Clone(d.Metadata.Labels), Annotations: maps.Clone(d.Metadata.Annotations)},
			Schema:                    clusterv1.VariableSchema{OpenAPIV3Schema: schemaUp(&d.Schema.OpenAPIV3Schema, &was.Schema.OpenAPIV3Schema)},
		})
	}
	return out
}

func statusVariableDown(in *clusterv1.ClusterClassStatusVariable) ClusterClassStatusVariable {
	out := ClusterClassStatusVariable{Name: in.Name, DefinitionsConflict: conversion.Deref(in.DefinitionsConflict)}
	for _, d := range in.Definitions {
		out.Definitions = append(out.Definitions, ClusterClassStatusVariableDefinition{
			From:     d.From,
			Required: conversion.Deref(d.Required),
			Metadata: ClusterClassVariableMetadata{Labels: maps.Clone(d.DeprecatedV1Beta1Metadata.Labels), Annotations: maps.Clone(d.DeprecatedV1Beta1Metadata.Annotations)},
			Schema:   VariableSchema{OpenAPIV3Schema: schemaDown(&d.Schema.OpenAPIV3Schema)},
		})
	}
	return out
}

// requiredUp is always set (v1beta2 requires the field) unless the recorded v1beta2 value was
// unset and v1beta1 says false.
func requiredUp(v bool, restored *bool, recorded bool) *bool {
	if recorded && restored == nil && !v {
		return nil
	}
	return &v
}

func schemaUp(in *JSONSchemaProps, restored *clusterv1.JSONSchemaProps) clusterv1.JSONSchemaProps {
	if restored == nil {
		restored = &clusterv1.JSONSchemaProps{}
	}
	out := clusterv1.JSONSchemaProps{
		Description: in.Description, Example: in.Example.DeepCopy(), Type: in.Type,
		MaxProperties: conversion.Copy(in.MaxProperties), MinProperties: conversion.Copy(in.MinProperties), Required: append([]string(nil), in.Required...),
		MaxItems: conversion.Copy(in.MaxItems), MinItems: conversion.Copy(in.MinItems), UniqueItems: conversion.BoolIntent(in.UniqueItems, restored.UniqueItems),
		Format: in.Format, MaxLength: conversion.Copy(in.MaxLength), MinLength: conversion.Copy(in.MinLength), Pattern: in.Pattern,
		Maximum: conversion.Copy(in.Maximum), ExclusiveMaximum: conversion.BoolIntent(in.ExclusiveMaximum, restored.ExclusiveMaximum),
		Minimum: conversion.Copy(in.Minimum), ExclusiveMinimum: conversion.BoolIntent(in.ExclusiveMinimum, restored.ExclusiveMinimum),
		XPreserveUnknownFields: conversion.BoolIntent(in.XPreserveUnknownFields, restored.XPreserveUnknownFields),
		Enum:                   copyJSONs(in.Enum), Default: in.Default.DeepCopy(),
		XValidations: append([]clusterv1.ValidationRule(nil), in.XValidations...),
		XIntOrString: conversion.BoolIntent(in.XIntOrString, restored.XIntOrString),
		AllOf:        schemasUp(in.AllOf, restored.AllOf), OneOf: schemasUp(in.OneOf, restored.OneOf), AnyOf: schemasUp(in.AnyOf, restored.AnyOf),
		AdditionalProperties: schemaPtrUp(in.AdditionalProperties, restored.AdditionalProperties),
		Items:                schemaPtrUp(in.Items, restored.Items), Not: schemaPtrUp(in.Not, restored.Not),
	}
	if m := in.XMetadata; m != nil {
		out.XMetadata = clusterv1.VariableSchemaMetadata{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
	}
	if in.Properties != nil {
		out.Properties = map[string]clusterv1.JSONSchemaProps{}
		for name, p := range in.Properties {
			was := restored.Properties[name]
			out.Properties[name] = schemaUp(&p, &was)
		}
	}
	return out
}

func schemaPtrUp(in *JSONSchemaProps, restored *clusterv1.JSONSchemaProps) *clusterv1.JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := schemaUp(in, restored)
	return &out
}

func schemasUp(in []JSONSchemaProps, restored []clusterv1.JSONSchemaProps) []clusterv1.JSONSchemaProps {
	var out []clusterv1.JSONSchemaProps
	for i := range in {
		var was *clusterv1.JSONSchemaProps
		if i < len(restored) {
			was = &restored[i]
		}
		out = append(out, schemaUp(&in[i], was))
	}
	return out
}

func schemaDown(in *clusterv1.JSONSchemaProps) JSONSchemaProps {
	out := JSONSchemaProps{
		Description: in.Description, Example: in.Example.DeepCopy(), Type: in.Type,
		MaxProperties: conversion.Copy(in.MaxProperties), MinProperties: conversion.Copy(in.MinProperties), Required: append([]string(nil), in.Required...),
		MaxItems: conversion.Copy(in.MaxItems), MinItems: conversion.Copy(in.MinItems), UniqueItems: conversion.Deref(in.UniqueItems),
		Format: in.Format, MaxLength: conversion.Copy(in.MaxLength), MinLength: conversion.Copy(in.MinLength), Pattern: in.Pattern,
		Maximum: conversion.Copy(in.Maximum), ExclusiveMaximum: conversion.Deref(in.ExclusiveMaximum),
		Minimum: conversion.Copy(in.Minimum), ExclusiveMinimum: conversion.Deref(in.ExclusiveMinimum),
		XPreserveUnknownFields: conversion.Deref(in.XPreserveUnknownFields),
		Enum:                   copyJSONs(in.Enum), Default: in.Default.DeepCopy(),
		XValidations: append([]clusterv1.ValidationRule(nil), in.XValidations...),
		XIntOrString: conversion.Deref(in.XIntOrString),
		AllOf:        schemasDown(in.AllOf), OneOf: schemasDown(in.OneOf), AnyOf: schemasDown(in.AnyOf),
		AdditionalProperties: schemaPtrDown(in.AdditionalProperties), Items: schemaPtrDown(in.Items), Not: schemaPtrDown(in.Not),
	}
	if m := in.XMetadata; len(m.Labels) > 0 || len(m.Annotations) > 0 {
		out.XMetadata = &VariableSchemaMetadata{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
	}
	if in.Properties != nil {
		out.Properties = map[string]JSONSchemaProps{}
		for name, p := range in.Properties {
			out.Properties[name] = schemaDown(&p)
		}
	}
	return out
}

func schemaPtrDown(in *clusterv1.JSONSchemaProps) *JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := schemaDown(in)
	return &out
}

func schemasDown(in []clusterv1.JSONSchemaProps) []JSONSchemaProps {
	var out []JSONSchemaProps
	for i := range in {
		out = append(out, schemaDown(&in[i]))
	}
	return out
}

func copyJSONs(in []apiextensionsv1.JSON) []apiextensionsv1.JSON {
	var out []apiextensionsv1.JSON
	for _, j := range in {
		out = append(out, *j.DeepCopy())
	}
	return out
}

func patchUp(in *ClusterClassPatch, restored *clusterv1.ClusterClassPatch) clusterv1.ClusterClassPatch {
	out := clusterv1.ClusterClassPatch{Name: in.Name, Description: in.Description, EnabledIf: conversion.Deref(in.EnabledIf)}
	for i := range in.Definitions {
		d := &in.Definitions[i]
		var was clusterv1.PatchSelectorMatch
		if i < len(restored.Definitions) {
			was = restored.Definitions[i].Selector.MatchResources
		}
		m := d.Selector.MatchResources
		def := clusterv1.PatchDefinition{Selector: clusterv1.PatchSelector{
			APIVersion: d.Selector.APIVersion, Kind: d.Selector.Kind,
			MatchResources: clusterv1.PatchSelectorMatch{
				ControlPlane:          conversion.BoolIntent(m.ControlPlane, was.ControlPlane),
				InfrastructureCluster: conversion.BoolIntent(m.InfrastructureCluster, was.InfrastructureCluster),
			},
		}}
		if m.MachineDeploymentClass != nil {
			def.Selector.MatchResources.MachineDeploymentClass = &clusterv1.PatchSelectorMatchClasses{Names: append([]string(nil), m.MachineDeploymentClass.Names...)}
		}
		if m.MachinePoolClass != nil {
			def.Selector.MatchResources.MachinePoolClass = &clusterv1.PatchSelectorMatchClasses{Names: append([]string(nil), m.MachinePoolClass.Names...)}
		}
		for _, p := range d.JSONPatches {
			jp := clusterv1.JSONPatch{Op: p.Op, Path: p.Path, Value: p.Value.DeepCopy()}
			if p.ValueFrom != nil {
				jp.ValueFrom = &clusterv1.JSONPatchValue{Variable: conversion.Deref(p.ValueFrom.Variable), Template: conversion.Deref(p.ValueFrom.Template)}
			}
			def.JSONPatches = append(def.JSONPatches, jp)
		}
		out.Definitions = append(out.Definitions, def)
	}
	if e := in.External; e != nil {
		out.External = &clusterv1.ExternalPatchDefinition{
			GeneratePatchesExtension: conversion.Deref(e.GenerateExtension), ValidateTopologyExtension: conversion.Deref(e.ValidateExtension),
			DiscoverVariablesExtension: conversion.Deref(e.DiscoverVariablesExtension), Settings: maps.Clone(e.Settings),
		}
	}
	return out
}

func patchDown(in *clusterv1.ClusterClassPatch) ClusterClassPatch {
	out := ClusterClassPatch{Name: in.Name, Description: in.Description, EnabledIf: conversion.NonZero(in.EnabledIf)}
	for _, d := range in.Definitions {
		m := d.Selector.MatchResources
		def := PatchDefinition{Selector: PatchSelector{
			APIVersion: d.Selector.APIVersion, Kind: d.Selector.Kind,
			MatchResources: PatchSelectorMatch{ControlPlane: conversion.Deref(m.ControlPlane), InfrastructureCluster: conversion.Deref(m.InfrastructureCluster)},
		}}
		if m.MachineDeploymentClass != nil {
			def.Selector.MatchResources.MachineDeploymentClass = &PatchSelectorMatchMachineDeploymentClass{Names: append([]string(nil), m.MachineDeploymentClass.Names...)}
		}
		if m.MachinePoolClass != nil {
			def.Selector.MatchResources.MachinePoolClass = &PatchSelectorMatchMachinePoolClass{Names: append([]string(nil), m.MachinePoolClass.Names...)}
		}
		for _, p := range d.JSONPatches {
			jp := JSONPatch{Op: p.Op, Path: p.Path, Value: p.Value.DeepCopy()}
			if p.ValueFrom != nil {
				jp.ValueFrom = &JSONPatchValue{Variable: conversion.NonZero(p.ValueFrom.Variable), Template: conversion.NonZero(p.ValueFrom.Template)}
			}
			def.JSONPatches = append(def.JSONPatches, jp)
		}
		out.Definitions = append(out.Definitions, def)
	}
	if e := in.External; e != nil {
		out.External = &ExternalPatchDefinition{
			GenerateExtension: conversion.NonZero(e.GeneratePatchesExtension), ValidateExtension: conversion.NonZero(e.ValidateTopologyExtension),
			DiscoverVariablesExtension: conversion.NonZero(e.DiscoverVariablesExtension), Settings: maps.Clone(e.Settings),
		}
	}
	return out
}
