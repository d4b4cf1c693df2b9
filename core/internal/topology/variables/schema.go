package variables

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// staticCostLimit is the apiserver's limit on a CRD rule's estimated cost (rule cost times how
// often it may run): a variable rule above it would be refused in a CRD, so it is here too.
const staticCostLimit = 10_000_000

// Schema is a variable schema ready to default and validate values.
type Schema struct {
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
	celRules   *cel.Validator // nil when the schema has no rule
}

// CompileSchema checks that props is a valid variable schema, as a CRD schema must be (structural,
// defaults matching the schema, CEL rules that compile within the cost limit), and returns it
// compiled. fldPath is the path of props, e.g. spec.variables[0].schema.openAPIV3Schema.
func CompileSchema(fldPath *field.Path, props clusterv1.JSONSchemaProps) (*Schema, field.ErrorList) {
	errs := exclusiveProperties(fldPath, &props)
	internal, err := toAPIExtensions(props)
	if err != nil {
		return nil, append(errs, field.Invalid(fldPath, "", err.Error()))
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, append(errs, field.Invalid(fldPath, "", "not a structural schema: "+err.Error()))
	}
	errs = append(errs, validateStructural(fldPath, s)...)
	if len(errs) > 0 {
		return nil, errs
	}
	errs = append(errs, compileRules(fldPath, s)...)
	v, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		return nil, append(errs, field.Invalid(fldPath, "", err.Error()))
	}
	errs = append(errs, validateDefaults(fldPath, internal)...)
	if len(errs) > 0 {
		return nil, errs
	}
	return &Schema{structural: s, validator: v, celRules: cel.NewValidator(s, false, celconfig.PerCallLimit)}, nil
}

// validateStructural checks s as a property of an object, as upstream does: the structural rules
// want an object at a CRD's root, while a variable may be of any type. Error paths are rewritten
// from the wrapper's to fldPath.
func validateStructural(fldPath *field.Path, s *structuralschema.Structural) field.ErrorList {
	const wrapperRoot = "variable"
	wrapper := &structuralschema.Structural{
		Generic:    structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{"v": *s},
	}
	prefix := field.NewPath(wrapperRoot).Child("properties").Key("v").String()
	errs := structuralschema.ValidateStructural(field.NewPath(wrapperRoot), wrapper)
	for _, e := range errs {
		if rest, ok := strings.CutPrefix(e.Field, prefix); ok {
			e.Field = fldPath.String() + rest
		}
	}
	return errs
}

// toAPIExtensions converts a variable schema to the apiserver's internal CRD schema. The JSON of
// both is the same except x-metadata, which CRD schemas do not have and validation ignores.
func toAPIExtensions(props clusterv1.JSONSchemaProps) (*apiextensions.JSONSchemaProps, error) {
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	v1 := &apiextensionsv1.JSONSchemaProps{}
	if err := json.Unmarshal(raw, v1); err != nil {
		return nil, fmt.Errorf("reading the schema as a CRD schema: %w", err)
	}
	out := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, out, nil); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	return out, nil
}

// exclusiveProperties refuses properties and additionalProperties on one node, as CRD schemas do.
func exclusiveProperties(fldPath *field.Path, p *clusterv1.JSONSchemaProps) field.ErrorList {
	var errs field.ErrorList
	if len(p.Properties) > 0 && p.AdditionalProperties != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"),
			"properties and additionalProperties cannot both be set: use properties for an object with known fields, additionalProperties for a map"))
	}
	for _, name := range sortedKeys(p.Properties) {
		prop := p.Properties[name]
		errs = append(errs, exclusiveProperties(fldPath.Child("properties").Key(name), &prop)...)
	}
	if p.Items != nil {
		errs = append(errs, exclusiveProperties(fldPath.Child("items"), p.Items)...)
	}
	if p.AdditionalProperties != nil {
		errs = append(errs, exclusiveProperties(fldPath.Child("additionalProperties"), p.AdditionalProperties)...)
	}
	return errs
}

// compileRules compiles the x-kubernetes-validations rules of every node of s.
func compileRules(fldPath *field.Path, s *structuralschema.Structural) field.ErrorList {
	var errs field.ErrorList
	if len(s.XValidations) > 0 {
		results, err := cel.Compile(s, model.SchemaDeclType(s, false), celconfig.PerCallLimit,
			environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
		if err != nil {
			return append(errs, field.Invalid(fldPath.Child("x-kubernetes-validations"), "", err.Error()))
		}
		for i, r := range results {
			rulePath := fldPath.Child("x-kubernetes-validations").Index(i)
			switch {
			case r.Error != nil:
				errs = append(errs, field.Invalid(rulePath.Child("rule"), s.XValidations[i].Rule, "compiling the CEL rule: "+r.Error.Detail))
			case r.MessageExpressionError != nil:
				errs = append(errs, field.Invalid(rulePath.Child("messageExpression"), s.XValidations[i].MessageExpression,
					"compiling the CEL expression: "+r.MessageExpressionError.Detail))
			case estimatedCost(r) > staticCostLimit:
				errs = append(errs, field.Forbidden(rulePath.Child("rule"), fmt.Sprintf(
					"the rule's estimated cost exceeds the limit (%d): bound the strings, lists and maps it reads with maxLength, maxItems and maxProperties",
					staticCostLimit)))
			}
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		prop := s.Properties[name]
		errs = append(errs, compileRules(fldPath.Child("properties").Key(name), &prop)...)
	}
	if s.Items != nil {
		errs = append(errs, compileRules(fldPath.Child("items"), s.Items)...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		errs = append(errs, compileRules(fldPath.Child("additionalProperties"), s.AdditionalProperties.Structural)...)
	}
	return errs
}

func estimatedCost(r cel.CompilationResult) uint64 {
	card := max(r.MaxCardinality, 1)
	if r.MaxCost > staticCostLimit || card > staticCostLimit/max(r.MaxCost, 1) {
		return staticCostLimit + 1
	}
	return r.MaxCost * card
}

// validateDefaults checks every default against the schema of its own node.
func validateDefaults(fldPath *field.Path, p *apiextensions.JSONSchemaProps) field.ErrorList {
	var errs field.ErrorList
	if p.Default != nil {
		node := *p
		node.Default = nil
		if v, _, err := validation.NewSchemaValidator(&node); err == nil {
			for _, e := range validation.ValidateCustomResource(fldPath.Child("default"), *p.Default, v) {
				errs = append(errs, field.Invalid(fldPath.Child("default"), e.BadValue, "the default does not match the schema: "+e.Error()))
			}
		}
	}
	for _, name := range sortedKeys(p.Properties) {
		prop := p.Properties[name]
		errs = append(errs, validateDefaults(fldPath.Child("properties").Key(name), &prop)...)
	}
	if p.Items != nil && p.Items.Schema != nil {
		errs = append(errs, validateDefaults(fldPath.Child("items"), p.Items.Schema)...)
	}
	if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
		errs = append(errs, validateDefaults(fldPath.Child("additionalProperties"), p.AdditionalProperties.Schema)...)
	}
	return errs
}

// decode reads a JSON value the way the apiserver reads custom resources: whole numbers become
// int64, so "integer" schemas accept them.
func decode(raw []byte) (any, error) {
	var v any
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
