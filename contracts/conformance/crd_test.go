package conformance

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// exampleCRD is the example provider's generated CRD of kind (controller-gen
// output: what a real provider ships).
func exampleCRD(t *testing.T, kind string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	all, err := envtest.DecodeCRDs(os.DirFS("example/config/crd"), "bases")
	require.NoError(t, err)
	for _, c := range all {
		if c.Spec.Names.Kind == kind {
			return c
		}
	}
	t.Fatalf("no example CRD of kind %s", kind)
	return nil
}

var machineGVK = schema.GroupVersionKind{Group: "infrastructure.example.capstan.dev", Version: "v1alpha1", Kind: "ExampleMachine"}

func TestCRDProblems_NamesTheBrokenRule(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*apiextensionsv1.CustomResourceDefinition)
		want   []string // substrings, one per problem
	}{
		{name: "the generated CRD is fine", mutate: func(*apiextensionsv1.CustomResourceDefinition) {}},
		{name: "plural that CalculateCRDName does not give", mutate: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Name = "examplemachinez.infrastructure.example.capstan.dev"
		}, want: []string{"CRD is named examplemachinez.infrastructure.example.capstan.dev, want examplemachines.infrastructure.example.capstan.dev"}},
		{name: "cluster scoped", mutate: func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped },
			want: []string{"All resources: scope (namespaced): CRD examplemachines.infrastructure.example.capstan.dev has scope \"Cluster\""}},
		{name: "list kind", mutate: func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.ListKind = "ExampleMachines" },
			want: []string{`spec.names.listKind is "ExampleMachines", want "ExampleMachineList"`}},
		{name: "no contract label", mutate: func(c *apiextensionsv1.CustomResourceDefinition) { c.Labels = nil },
			want: []string{"has no label cluster.x-k8s.io/v1beta2"}},
		{name: "only the v1beta1 contract", mutate: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels = map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha1"}
		}, want: []string{"declares only cluster.x-k8s.io/v1beta1=v1alpha1"}},
		{name: "malformed label", mutate: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels["cluster.x-k8s.io/v1beta2"] = "v1alpha1__v1"
		}, want: []string{"empty version between '_' separators"}},
		{name: "label naming a version that is not served", mutate: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels["cluster.x-k8s.io/v1beta2"] = "v1alpha1_v1beta1"
		}, want: []string{"names version v1beta1, which CRD examplemachines.infrastructure.example.capstan.dev does not serve"}},
		{name: "version under test neither served nor labelled", mutate: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Name = "v1beta1"
			c.Labels["cluster.x-k8s.io/v1beta2"] = "v1beta1"
		}, want: []string{"does not serve version v1alpha1 (served: v1beta1)", "does not name v1alpha1, the version under test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := exampleCRD(t, "ExampleMachine")
			tt.mutate(crd)
			got := crdProblems(crd, machineGVK, "InfraMachine", true)
			require.Len(t, got, len(tt.want), "problems: %q", got)
			for i, w := range tt.want {
				require.Contains(t, got[i], w)
			}
		})
	}
}

func TestSchemaProblems_FindsMistypedAndPrunedContractFields(t *testing.T) {
	fields := []schemaField{
		{path: "spec.providerID", typ: "string", required: true},
		{path: "status.initialization.provisioned", typ: "boolean", required: true},
		{path: "status.addresses", typ: "array"},
		{path: "status.addresses[]", typ: "object", required: true},
		{path: "status.addresses[].type", typ: "string", required: true},
		{path: "status.failureDomain", typ: "string"},
	}
	rootOf := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
		return c.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	tests := []struct {
		name   string
		mutate func(*apiextensionsv1.JSONSchemaProps)
		want   []string
	}{
		{name: "the generated schema is fine", mutate: func(*apiextensionsv1.JSONSchemaProps) {}},
		{name: "providerID as an integer", mutate: func(s *apiextensionsv1.JSONSchemaProps) {
			s.Properties["spec"].Properties["providerID"] = apiextensionsv1.JSONSchemaProps{Type: "integer"}
		}, want: []string{`spec.providerID is declared as "integer" in the schema of v1alpha1, the contract reads "string"`}},
		{name: "provisioned pruned", mutate: func(s *apiextensionsv1.JSONSchemaProps) {
			delete(s.Properties["status"].Properties, "initialization")
		}, want: []string{`status.initialization.provisioned is not in the schema of v1alpha1 (nothing declares "initialization.provisioned" under status`}},
		{name: "addresses as strings", mutate: func(s *apiextensionsv1.JSONSchemaProps) {
			s.Properties["status"].Properties["addresses"] = apiextensionsv1.JSONSchemaProps{Type: "array",
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}
		}, want: []string{`status.addresses[] is declared as "string"`}},
		{name: "optional fields may be missing, with everything under them", mutate: func(s *apiextensionsv1.JSONSchemaProps) {
			delete(s.Properties["status"].Properties, "addresses")
			delete(s.Properties["status"].Properties, "failureDomain")
		}},
		{name: "a status that preserves unknown fields declares nothing", mutate: func(s *apiextensionsv1.JSONSchemaProps) {
			s.Properties["status"] = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := exampleCRD(t, "ExampleMachine")
			s := rootOf(crd)
			// Properties holds values: mutate copies and write them back.
			spec, status := s.Properties["spec"], s.Properties["status"]
			spec.Properties = copyProps(spec.Properties)
			status.Properties = copyProps(status.Properties)
			s.Properties["spec"], s.Properties["status"] = spec, status
			tt.mutate(s)
			got := schemaProblems(crd, "v1alpha1", "InfraMachine", fields)
			require.Len(t, got, len(tt.want), "problems: %q", got)
			for i, w := range tt.want {
				require.Contains(t, got[i], w)
			}
		})
	}
}

// The generic test CRDs preserve unknown fields in spec and status: nothing to
// declare, nothing pruned.
func TestSchemaProblems_GenericTestCRDsPass(t *testing.T) {
	for _, crd := range crds.All() {
		if !strings.HasPrefix(crd.Name, "genericinfrastructuremachines.") {
			continue
		}
		require.Empty(t, schemaProblems(crd, "v1beta2", "InfraMachine", []schemaField{
			{path: "spec.providerID", typ: "string", required: true},
			{path: "status.initialization.provisioned", typ: "boolean", required: true},
		}))
	}
}

func copyProps(in map[string]apiextensionsv1.JSONSchemaProps) map[string]apiextensionsv1.JSONSchemaProps {
	out := make(map[string]apiextensionsv1.JSONSchemaProps, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func TestSplitAndParentPath(t *testing.T) {
	require.Equal(t, []string{"status", "addresses", "[]", "type"}, splitPath("status.addresses[].type"))
	require.Equal(t, "status.addresses[]", parentPath("status.addresses[].type"))
	require.Equal(t, "status.addresses", parentPath("status.addresses[]"))
	require.Equal(t, "", parentPath("status"))
}
