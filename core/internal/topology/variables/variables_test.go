package variables

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

var schemaPath = field.NewPath("spec", "variables").Index(0).Child("schema", "openAPIV3Schema")

func raw(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

// props reads a schema written as JSON, the way users write it in a ClusterClass.
func props(t *testing.T, s string) clusterv1.JSONSchemaProps {
	t.Helper()
	var p clusterv1.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(s), &p))
	return p
}

// requireErrors requires one error per want, in order, each containing all of its parts.
func requireErrors(t *testing.T, errs field.ErrorList, want ...[]string) {
	t.Helper()
	require.Len(t, errs, len(want), "errors: %v", errs)
	for i, parts := range want {
		for _, p := range parts {
			require.Contains(t, errs[i].Error(), p)
		}
	}
}

func TestCompileSchema_RefusesInvalidSchemasWithTheFieldPath(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{"PropertyWithoutType", `{"type":"object","properties":{"port":{"minimum":1}}}`,
			[]string{"spec.variables[0].schema.openAPIV3Schema.properties[port].type", "Required value"}},
		{"PropertiesAndAdditionalProperties", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
			[]string{"spec.variables[0].schema.openAPIV3Schema.additionalProperties", "cannot both be set"}},
		{"RuleThatDoesNotCompile", `{"type":"string","x-kubernetes-validations":[{"rule":"self.size( > 1"}]}`,
			[]string{"spec.variables[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule", "compiling the CEL rule"}},
		{"RuleOnAFieldThatDoesNotExist", `{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.b == 'x'"}]}`,
			[]string{"x-kubernetes-validations[0].rule", "undefined field 'b'"}},
		{"DefaultOfTheWrongType", `{"type":"object","properties":{"port":{"type":"integer","default":"http"}}}`,
			[]string{"spec.variables[0].schema.openAPIV3Schema.properties[port].default", "the default does not match the schema"}},
		{"DefaultNotInTheEnum", `{"type":"string","enum":["a","b"],"default":"c"}`,
			[]string{"openAPIV3Schema.default", "Unsupported value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, errs := CompileSchema(schemaPath, props(t, tt.schema))
			require.Nil(t, s)
			require.NotEmpty(t, errs)
			msg := errs.ToAggregate().Error()
			for _, w := range tt.want {
				require.Contains(t, msg, w)
			}
		})
	}
}

// classDefinitions compiles the definitions of a class with spec.variables vars.
func classDefinitions(t *testing.T, vars ...clusterv1.ClusterClassVariable) map[string]Definition {
	t.Helper()
	defs, err := Definitions(StatusVariables(vars))
	require.NoError(t, err)
	return defs
}

func variable(t *testing.T, name string, required bool, schema string) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{Name: name, Required: ptr.To(required),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: props(t, schema)}}
}

func values(kv ...string) []clusterv1.ClusterVariable {
	var out []clusterv1.ClusterVariable
	for i := 0; i < len(kv); i += 2 {
		out = append(out, clusterv1.ClusterVariable{Name: kv[i], Value: *raw(kv[i+1])})
	}
	return out
}

func quickStartDefinitions(t *testing.T) map[string]Definition {
	return classDefinitions(t,
		variable(t, "imageRepository", true, `{"type":"string","default":"registry.k8s.io","minLength":1}`),
		variable(t, "podSecurityStandard", false, `{"type":"object","properties":{
			"enabled":{"type":"boolean","default":true},
			"enforce":{"type":"string","enum":["privileged","baseline","restricted"],"default":"baseline"}}}`),
		variable(t, "workers", false, `{"type":"object","properties":{"count":{"type":"integer"},"max":{"type":"integer"}},
			"x-kubernetes-validations":[{"rule":"self.count <= self.max","messageExpression":"'count must not exceed max'"}]}`),
	)
}

func TestValidate_ReportsEachBadValueWithTheVariableAndFieldPath(t *testing.T) {
	defs := quickStartDefinitions(t)
	path := field.NewPath("spec", "topology", "variables")
	tests := []struct {
		name   string
		values []clusterv1.ClusterVariable
		want   [][]string
	}{
		{"WrongType", values("imageRepository", `42`),
			[][]string{{"spec.topology.variables[imageRepository].value", "Invalid value", "string"}}},
		{"NotInTheEnum", values("imageRepository", `"r"`, "podSecurityStandard", `{"enforce":"strict"}`),
			[][]string{{"spec.topology.variables[podSecurityStandard].value.enforce", "Unsupported value", `"strict"`}}},
		{"UnknownField", values("imageRepository", `"r"`, "podSecurityStandard", `{"audit":"restricted"}`),
			[][]string{{"spec.topology.variables[podSecurityStandard].value", `field(s) audit are not specified in the variable schema`}}},
		{"CELRule", values("imageRepository", `"r"`, "workers", `{"count":5,"max":3}`),
			[][]string{{"spec.topology.variables[workers].value", "count must not exceed max"}}},
		{"Undefined", values("imageRepository", `"r"`, "etcdImageTag", `"3.7.0"`),
			[][]string{{"spec.topology.variables[etcdImageTag]", `variable "etcdImageTag" is not defined in the ClusterClass`, "imageRepository, podSecurityStandard, workers"}}},
		{"RequiredMissing", values("workers", `{"count":1,"max":3}`),
			[][]string{{"spec.topology.variables: Required value", `variable "imageRepository" is required`}}},
		{"NotJSON", []clusterv1.ClusterVariable{{Name: "imageRepository", Value: apiextensionsv1.JSON{Raw: []byte(`{`)}}},
			[][]string{{"spec.topology.variables[imageRepository].value", "not valid JSON"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireErrors(t, Validate(context.Background(), path, tt.values, defs), tt.want...)
		})
	}
	require.Empty(t, Validate(context.Background(), path, values("imageRepository", `"r"`, "workers", `{"count":3,"max":3}`), defs))
}

func TestValidateOverrides_DoesNotRequireRequiredVariables(t *testing.T) {
	defs := quickStartDefinitions(t)
	path := field.NewPath("spec", "topology", "controlPlane", "variables", "overrides")
	require.Empty(t, ValidateOverrides(context.Background(), path, values("workers", `{"count":1,"max":2}`), defs))
	requireErrors(t, ValidateOverrides(context.Background(), path, values("workers", `{"count":"one"}`), defs),
		[]string{"spec.topology.controlPlane.variables.overrides[workers].value.count", "integer"})
}

func TestDefault_AddsTopLevelDefaultsAndFillsNestedOnes(t *testing.T) {
	defs := quickStartDefinitions(t)
	got := Default(values("podSecurityStandard", `{"enforce":"restricted"}`), defs)
	var parts []string
	for _, v := range got {
		parts = append(parts, v.Name+"="+string(v.Value.Raw))
	}
	require.Equal(t, `podSecurityStandard={"enabled":true,"enforce":"restricted"} imageRepository="registry.k8s.io"`,
		strings.Join(parts, " "), "nested defaults filled, a missing top-level default added after the given values")
	require.Empty(t, Validate(context.Background(), field.NewPath("v"), got, defs), "defaulted values are valid")
	require.Equal(t, got, Default(got, defs), "defaulting twice changes nothing")
}

func TestDefinitions_RefusesConflictingDefinitions(t *testing.T) {
	status := StatusVariables([]clusterv1.ClusterClassVariable{variable(t, "a", false, `{"type":"string"}`)})
	status[0].DefinitionsConflict = ptr.To(true)
	_, err := Definitions(status)
	require.ErrorContains(t, err, `variable "a" has conflicting definitions`)
}
