package clusterclass

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// TestCheckDiscovered_RefusesWhatAdmissionRefusesInSpecVariables: an extension's variables are
// held to spec.variables' rules, each problem naming the field.
func TestCheckDiscovered_RefusesWhatAdmissionRefusesInSpecVariables(t *testing.T) {
	str := clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}}
	problems := checkDiscovered([]clusterv1.ClusterClassVariable{
		{Name: "ok", Required: ptr.To(false), Schema: str},
		{Name: "builtin", Required: ptr.To(false), Schema: str},
		{Name: "a.b", Required: ptr.To(false), Schema: str},
		{Name: "ok", Required: ptr.To(false), Schema: str},
		{Name: "noRequired", Schema: str},
		{Name: "badType", Required: ptr.To(false), Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "map"}}},
	})
	require.Len(t, problems, 5, "%v", problems)
	require.Contains(t, problems[0], `variables[1].name: "builtin" is reserved`)
	require.Contains(t, problems[1], `variables[2].name: "a.b"`)
	require.Contains(t, problems[2], `variables[3].name: "ok" is defined twice`)
	require.Contains(t, problems[3], `variables[4].required`)
	require.Contains(t, problems[4], `variables[5].schema.openAPIV3Schema.type`)
}

// TestMergeVariables_OrdersDefinitionsAndFlagsOnlyDifferingOnes.
func TestMergeVariables_OrdersDefinitionsAndFlagsOnlyDifferingOnes(t *testing.T) {
	str := clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}}
	num := clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "integer"}}
	out, conflicts := mergeVariables(
		[]clusterv1.ClusterClassVariable{{Name: "same", Required: ptr.To(false), Schema: str}, {Name: "differs", Required: ptr.To(false), Schema: str}},
		[]discovered{
			{from: "a", vars: []clusterv1.ClusterClassVariable{{Name: "same", Required: ptr.To(false), Schema: str}, {Name: "onlyA", Required: ptr.To(true), Schema: num}}},
			{from: "b", vars: []clusterv1.ClusterClassVariable{{Name: "differs", Required: ptr.To(false), Schema: num}}},
		})
	require.Equal(t, []string{`variable "differs" has conflicting definitions (from inline, b): make them equal, or rename one`}, conflicts)
	var names []string
	for _, v := range out {
		names = append(names, v.Name)
	}
	require.Equal(t, []string{"differs", "onlyA", "same"}, names)
	require.True(t, *out[0].DefinitionsConflict)
	require.False(t, *out[2].DefinitionsConflict)
	require.Equal(t, []string{"inline", "a"}, []string{out[2].Definitions[0].From, out[2].Definitions[1].From})
	require.Equal(t, "a", out[1].Definitions[0].From)
}
