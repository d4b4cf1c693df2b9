package variables

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Definition is what a Cluster's value of one variable is checked against.
type Definition struct {
	Name     string
	Required bool
	Schema   *Schema
}

// Definitions compiles the class's published variables (status.variables), keyed by name. A
// variable whose definitions conflict, or whose schema does not compile, is an error naming it:
// no Cluster of the class can be checked until the class is fixed.
func Definitions(status []clusterv1.ClusterClassStatusVariable) (map[string]Definition, error) {
	defs := make(map[string]Definition, len(status))
	for i, v := range status {
		if ptr.Deref(v.DefinitionsConflict, false) || len(v.Definitions) == 0 {
			return nil, fmt.Errorf("variable %q has conflicting definitions in the ClusterClass", v.Name)
		}
		d := v.Definitions[0]
		s, errs := CompileSchema(field.NewPath("status", "variables").Index(i).Child("definitions").Index(0).
			Child("schema", "openAPIV3Schema"), d.Schema.OpenAPIV3Schema)
		if len(errs) > 0 {
			return nil, fmt.Errorf("variable %q has an invalid schema in the ClusterClass: %w", v.Name, errs.ToAggregate())
		}
		defs[v.Name] = Definition{Name: v.Name, Required: ptr.Deref(d.Required, false), Schema: s}
	}
	return defs, nil
}

// StatusVariables is status.variables for a class's spec.variables: one inline definition per
// name, sorted by name. Names are unique (the CRD keys the list by name), so none conflict.
func StatusVariables(vars []clusterv1.ClusterClassVariable) []clusterv1.ClusterClassStatusVariable {
	out := make([]clusterv1.ClusterClassStatusVariable, 0, len(vars))
	for _, v := range vars {
		out = append(out, clusterv1.ClusterClassStatusVariable{
			Name:                v.Name,
			DefinitionsConflict: ptr.To(false),
			Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{
				From: clusterv1.VariableDefinitionFromInline, Required: v.Required,
				DeprecatedV1Beta1Metadata: *v.DeprecatedV1Beta1Metadata.DeepCopy(), Schema: *v.Schema.DeepCopy(),
			}},
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil
	}
	return out
}

// Default returns values with the definitions' defaults applied: a variable left out whose schema
// has a top-level default is added (after the given ones, in name order, so the result is
// stable), and nested defaults fill in the values given. Values it cannot read are kept as they
// are: Validate reports them.
func Default(values []clusterv1.ClusterVariable, defs map[string]Definition) []clusterv1.ClusterVariable {
	return defaultValues(values, defs, true)
}

// DefaultOverrides applies the nested defaults to overrides; unlike Default it never adds a
// variable: an override exists only where the user wrote one (as upstream).
func DefaultOverrides(values []clusterv1.ClusterVariable, defs map[string]Definition) []clusterv1.ClusterVariable {
	return defaultValues(values, defs, false)
}

func defaultValues(values []clusterv1.ClusterVariable, defs map[string]Definition, addMissing bool) []clusterv1.ClusterVariable {
	out := make([]clusterv1.ClusterVariable, 0, len(values))
	seen := map[string]bool{}
	for _, v := range values {
		seen[v.Name] = true
		if d, ok := defs[v.Name]; ok {
			v.Value = d.Schema.defaultValue(v.Value)
		}
		out = append(out, v)
	}
	for _, name := range sortedKeys(defs) {
		d := defs[name]
		if !addMissing || seen[name] || d.Schema.structural.Default.Object == nil {
			continue
		}
		v := d.Schema.defaultValue(apiextensionsv1.JSON{})
		out = append(out, clusterv1.ClusterVariable{Name: name, Value: v})
	}
	return out
}

// defaultValue applies the schema's defaults to raw; an empty raw takes the top-level default.
func (s *Schema) defaultValue(raw apiextensionsv1.JSON) apiextensionsv1.JSON {
	// Wrapping the value as the field of an object lets the defaulting algorithm, which fills
	// object fields, fill in the top-level value too.
	wrapper := &structuralschema.Structural{
		Generic:    structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{"value": *s.structural},
	}
	obj := map[string]any{}
	if len(raw.Raw) > 0 {
		v, err := decode(raw.Raw)
		if err != nil {
			return raw
		}
		obj["value"] = v
	}
	defaulting.Default(obj, wrapper)
	v, ok := obj["value"]
	if !ok {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return apiextensionsv1.JSON{Raw: out}
}

// Validate checks a Cluster's topology variables against the class's definitions: every value
// is defined and matches its schema, and every required variable is set. fldPath is the path of
// the list, e.g. spec.topology.variables; errors name the variable in it.
func Validate(ctx context.Context, fldPath *field.Path, values []clusterv1.ClusterVariable, defs map[string]Definition) field.ErrorList {
	var errs field.ErrorList
	set := map[string]bool{}
	for _, v := range values {
		set[v.Name] = true
		d, ok := defs[v.Name]
		if !ok {
			errs = append(errs, field.Invalid(fldPath.Key(v.Name), v.Name, fmt.Sprintf(
				"variable %q is not defined in the ClusterClass: remove it, or use one of the class's variables (%s)",
				v.Name, strings.Join(sortedKeys(defs), ", "))))
			continue
		}
		errs = append(errs, d.Schema.Validate(ctx, fldPath.Key(v.Name).Child("value"), v.Value)...)
	}
	for _, name := range sortedKeys(defs) {
		if defs[name].Required && !set[name] {
			errs = append(errs, field.Required(fldPath, fmt.Sprintf(
				"variable %q is required by the ClusterClass: add {name: %s, value: ...} to the variables", name, name)))
		}
	}
	return errs
}

// ValidateOverrides checks overrides (of the control plane or a worker): as Validate, except that
// required variables need not be overridden.
func ValidateOverrides(ctx context.Context, fldPath *field.Path, values []clusterv1.ClusterVariable, defs map[string]Definition) field.ErrorList {
	var errs field.ErrorList
	for _, e := range Validate(ctx, fldPath, values, defs) {
		if e.Type != field.ErrorTypeRequired || e.Field != fldPath.String() {
			errs = append(errs, e)
		}
	}
	return errs
}

// Validate checks one value: JSON, no field the schema does not declare, the schema itself
// (types, enums, formats, bounds, required fields), then the CEL rules.
func (s *Schema) Validate(ctx context.Context, fldPath *field.Path, raw apiextensionsv1.JSON) field.ErrorList {
	v, err := decode(raw.Raw)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, string(raw.Raw), "not valid JSON: "+err.Error())}
	}
	var errs field.ErrorList
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	if unknown := pruning.PruneWithOptions(runtime.DeepCopyJSONValue(v), s.structural, false, opts); len(unknown) > 0 {
		sort.Strings(unknown)
		errs = append(errs, field.Invalid(fldPath, string(raw.Raw), fmt.Sprintf(
			"field(s) %s are not specified in the variable schema: remove them, or declare them in the ClusterClass",
			strings.Join(unknown, ", "))))
	}
	errs = append(errs, validation.ValidateCustomResource(fldPath, v, s.validator)...)
	if len(errs) == 0 && s.celRules != nil {
		celErrs, _ := s.celRules.Validate(ctx, fldPath, s.structural, v, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}
