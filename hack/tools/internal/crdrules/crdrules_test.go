package crdrules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

// policyEnv is the CEL environment the apiserver compiles a ValidatingAdmissionPolicy's
// expressions in (its base library set; object, oldObject and request untyped).
func policyEnv(t *testing.T) *cel.Env {
	t.Helper()
	set, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable("object", cel.DynType), cel.Variable("oldObject", cel.DynType), cel.Variable("request", cel.DynType),
		},
	})
	require.NoError(t, err)
	return set.NewExpressionsEnv()
}

func eval(t *testing.T, env *cel.Env, expr string, vars map[string]any) bool {
	t.Helper()
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err(), expr)
	prg, err := env.Program(ast)
	require.NoError(t, err)
	out, _, err := prg.Eval(vars)
	require.NoError(t, err, expr)
	return out.Value() == true
}

// denials are the messages of the policy's validations that fail for the write of obj over old.
func denials(t *testing.T, env *cel.Env, p *admissionregistrationv1.ValidatingAdmissionPolicy, obj, old map[string]any) []string {
	t.Helper()
	vars := map[string]any{"object": obj, "oldObject": old, "request": map[string]any{}}
	if old == nil {
		vars["oldObject"] = nil
	}
	var out []string
	for _, v := range p.Spec.Validations {
		if eval(t, env, v.Expression, vars) {
			continue
		}
		msg := v.Message
		if v.MessageExpression != "" {
			ast, iss := env.Compile(v.MessageExpression)
			require.NoError(t, iss.Err(), v.MessageExpression)
			prg, err := env.Program(ast)
			require.NoError(t, err)
			got, _, err := prg.Eval(vars)
			require.NoError(t, err, v.MessageExpression)
			msg = got.Value().(string)
		}
		out = append(out, msg)
	}
	return out
}

const testCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.capstan.dev}
spec:
  group: example.capstan.dev
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object}}
  - name: v1beta2
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "!has(self.spec) || !has(self.spec.replicas) || self.spec.replicas < 100"
          message: at most 99 replicas
          fieldPath: .spec.replicas
        required: [spec]
        properties:
          spec:
            type: object
            properties:
              replicas:
                type: integer
                x-kubernetes-validations:
                - {rule: "self >= 0", message: must not be negative}
              version:
                type: string
                x-kubernetes-validations:
                - {rule: "self == oldSelf", message: is immutable, reason: FieldValueForbidden}
              namespace:
                type: string
                x-kubernetes-validations:
                - rule: "self != 'kube-system'"
                - rule: "self != 'kube-public'"
                  messageExpression: "'namespace ' + self + ' is reserved'"
              expires:
                type: string
                format: date-time
                x-kubernetes-validations:
                - rule: "self > timestamp('2000-01-01T00:00:00Z')"
              labels:
                type: object
                additionalProperties:
                  type: string
                  x-kubernetes-validations:
                  - {rule: "self.size() <= 3", message: "at most 3 characters, not 'self'", messageExpression: "self + ' is too long'"}
              items:
                type: array
                items:
                  type: object
                  required: [name]
                  x-kubernetes-validations:
                  - {rule: "self.name != ''", message: needs a name}
                  properties:
                    name: {type: string}
                    port:
                      type: integer
                      x-kubernetes-validations:
                      - {rule: "self > 0", message: must be positive}
                      - {rule: "self == oldSelf", message: is immutable}
          status:
            type: object
            properties:
              ready:
                type: boolean
                x-kubernetes-validations:
                - rule: "self"
`

func widgetCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.UnmarshalStrict([]byte(testCRD), crd))
	return crd
}

func TestPolicy_CarriesEveryRuleToTheWritesOfTheOtherVersions(t *testing.T) {
	env := policyEnv(t)
	p, b, skipped, err := Policy(widgetCRD(t), "v1beta2")
	require.NoError(t, err)
	require.NotNil(t, p)

	rule := p.Spec.MatchConstraints.ResourceRules[0]
	require.Equal(t, admissionregistrationv1.Equivalent, *p.Spec.MatchConstraints.MatchPolicy, "writes of v1beta1 reach it converted")
	require.Equal(t, []string{"example.capstan.dev"}, rule.APIGroups)
	require.Equal(t, []string{"v1beta2"}, rule.APIVersions)
	require.Equal(t, []string{"widgets"}, rule.Resources)
	require.Equal(t, p.Name, b.Spec.PolicyName)
	cond := p.Spec.MatchConditions[0].Expression
	require.True(t, eval(t, env, cond, map[string]any{"request": map[string]any{"requestResource": map[string]any{"version": "v1beta1"}}}))
	require.False(t, eval(t, env, cond, map[string]any{"request": map[string]any{"requestResource": map[string]any{"version": "v1beta2"}}}),
		"v1beta2 writes are validated by the schema itself")

	valid := map[string]any{"spec": map[string]any{
		"replicas": int64(3), "version": "v1", "namespace": "default", "labels": map[string]any{"a": "abc"},
		"items": []any{map[string]any{"name": "x", "port": int64(80)}},
	}}
	require.Empty(t, denials(t, env, p, valid, nil))
	require.Equal(t, []string{"spec: Required value"}, denials(t, env, p, map[string]any{}, nil), "absent fields satisfy every rule but required")
	require.Empty(t, denials(t, env, p, map[string]any{"spec": map[string]any{}}, nil))
	require.Empty(t, denials(t, env, p, valid, valid))

	with := func(key string, v any) map[string]any {
		spec := map[string]any{}
		for k, val := range valid["spec"].(map[string]any) {
			spec[k] = val
		}
		spec[key] = v
		return map[string]any{"spec": spec}
	}
	require.Equal(t, []string{"spec.replicas: must not be negative"}, denials(t, env, p, with("replicas", int64(-1)), nil))
	require.Equal(t, []string{"spec.replicas: at most 99 replicas"}, denials(t, env, p, with("replicas", int64(100)), nil))
	require.Equal(t, []string{"spec.namespace: failed rule: self != 'kube-system'"}, denials(t, env, p, with("namespace", "kube-system"), nil))
	require.Equal(t, []string{"spec.namespace: namespace kube-public is reserved"}, denials(t, env, p, with("namespace", "kube-public"), nil),
		"a message expression is carried with the path")
	require.Equal(t, []string{"spec.labels[*]: at most 3 characters, not 'self'"}, denials(t, env, p, with("labels", map[string]any{"a": "abcd"}), nil),
		"below a map the static message stands: the message expression's self is out of reach")
	require.Equal(t, []string{"spec.items[*]: needs a name", "spec.items[*].port: must be positive"},
		denials(t, env, p, with("items", []any{map[string]any{"name": "x", "port": int64(1)}, map[string]any{"name": "", "port": int64(0)}}), nil))
	require.Equal(t, []string{"spec.items[*].name: Required value"}, denials(t, env, p, with("items", []any{map[string]any{"port": int64(1)}}), nil))
	require.Equal(t, []string{"spec.version: is immutable"}, denials(t, env, p, with("version", "v2"), valid), "a transition rule holds on update")
	require.Empty(t, denials(t, env, p, with("version", "v2"), map[string]any{"spec": map[string]any{}}), "and only when the old object had the field")

	var why []string
	for _, s := range skipped {
		why = append(why, s.Path+": "+s.Why)
	}
	require.ElementsMatch(t, []string{
		"spec.expires: a date-time or duration field in its node",
		"spec.items[*].port: a transition rule below a list or map",
	}, why, "status is not matched, so its rules are not even listed")
}

func TestPolicy_NothingForACRDOfOneVersion(t *testing.T) {
	crd := widgetCRD(t)
	crd.Spec.Versions = crd.Spec.Versions[1:]
	p, b, _, err := Policy(crd, "v1beta2")
	require.NoError(t, err)
	require.Nil(t, p)
	require.Nil(t, b)
	_, _, _, err = Policy(crd, "v1")
	require.ErrorContains(t, err, "no schema for version v1")
}

func TestSubstitute_LeavesStringsAndSelectionsAlone(t *testing.T) {
	vars := map[string]string{"self": "object.spec", "oldSelf": "oldObject.spec"}
	require.Equal(t, `(object.spec).a == (oldObject.spec).a && x.self == "self" && '''self''' != r'self\'`,
		substitute(`self.a == oldSelf.a && x.self == "self" && '''self''' != r'self\'`, vars))
	require.Equal(t, `(object.spec).all(s, s.selfish) && selfie`, substitute(`self.all(s, s.selfish) && selfie`, vars))
	require.Equal(t, `"a\"self" + (object.spec)`, substitute(`"a\"self" + self`, vars))
}

// Every rule of Capstan's CRDs compiles in the apiserver's policy environment once carried over.
func TestPolicy_EveryRuleOfTheRepositorysCRDsCompiles(t *testing.T) {
	env := policyEnv(t)
	files, err := filepath.Glob("../../../../*/config/crd/bases/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	carried := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, yaml.Unmarshal(data, crd), f)
		p, _, _, err := Policy(crd, "v1beta2")
		require.NoError(t, err, f)
		if p == nil {
			continue
		}
		for _, v := range p.Spec.Validations {
			_, iss := env.Compile(v.Expression)
			require.NoError(t, iss.Err(), "%s: %s", filepath.Base(f), v.Expression)
			if v.MessageExpression != "" {
				_, iss := env.Compile(v.MessageExpression)
				require.NoError(t, iss.Err(), "%s: %s", filepath.Base(f), v.MessageExpression)
			}
			require.False(t, strings.HasPrefix(v.Message, "status"), v.Message)
			carried++
		}
	}
	require.Greater(t, carried, 300, "the v1beta2 schemas hold some 450 rules")
}
