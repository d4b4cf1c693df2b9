// Package crdrules carries a CRD's CEL validation rules of one version (v1beta2, where Capstan
// writes its rules) over to the writes made in the CRD's other served versions (v1beta1).
//
// The apiserver validates an object against the schema of the version it was written in and
// then converts it for storage; nothing validates the converted object. A v1beta1 write would
// therefore pass every rule that exists only in the v1beta2 schema. Upstream validates such
// writes in webhooks that receive the object converted to v1beta2; Capstan has no validating
// webhook, so it derives a ValidatingAdmissionPolicy per CRD instead: it matches the v1beta2
// resource with matchPolicy Equivalent (the apiserver converts a write of another version to
// v1beta2 before evaluating it), is limited by a match condition to writes made in another
// version (v1beta2 writes are validated by the schema itself), and holds one validation per
// rule, with the rule's node reached from `object` and bound to `self` (and `oldSelf`).
//
// What cannot be carried over is left out and listed by Policy: rules under status (the
// policy matches the main resource only), transition rules below a list or map (their old
// value cannot be paired without the schema's list-map semantics), rules with
// optionalOldSelf, and rules whose node has date-time or duration fields (the CRD types them
// as timestamps and durations; a policy sees their strings).
package crdrules

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Skipped is a rule Policy did not carry over, and why.
type Skipped struct {
	Path, Rule, Why string
}

// Policy returns the ValidatingAdmissionPolicy and binding that apply the rules of crd's
// version to writes made in its other versions, and the rules it left out. It returns nil
// objects when the CRD has no other version or the version has no rule to carry.
func Policy(crd *apiextensionsv1.CustomResourceDefinition, version string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding, []Skipped, error) {
	var schema *apiextensionsv1.JSONSchemaProps
	others := 0
	for _, v := range crd.Spec.Versions {
		switch {
		case v.Name == version && v.Schema != nil:
			schema = v.Schema.OpenAPIV3Schema
		case v.Name != version:
			// Served or not: the CRD files say served: false for v1beta1, and the provider's
			// manager turns serving on once its conversion webhook answers.
			others++
		}
	}
	if schema == nil {
		return nil, nil, nil, fmt.Errorf("CRD %s has no schema for version %s", crd.Name, version)
	}
	if others == 0 {
		return nil, nil, nil, nil
	}
	w := &walker{}
	w.walk(schema, node{cur: "object", old: "oldObject", wrap: func(s string) string { return s }})
	if len(w.validations) == 0 {
		return nil, nil, w.skipped, nil
	}
	name := crd.Name + "-" + version + "-rules"
	fail := admissionregistrationv1.Fail
	equivalent := admissionregistrationv1.Equivalent
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				MatchPolicy: &equivalent,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups:   []string{crd.Spec.Group},
							APIVersions: []string{version},
							Resources:   []string{crd.Spec.Names.Plural},
						},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "written-in-another-version",
				Expression: fmt.Sprintf("request.requestResource.version != %q", version),
			}},
			Validations: w.validations,
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return policy, binding, w.skipped, nil
}

// node is a schema node as the walk reaches it: the CEL expression of its value in the new
// and the old object (old is empty below a list or map), the path users know it by, and the
// guards and iterations that lead to it (wrap puts an expression inside them).
type node struct {
	cur, old string
	path     string
	depth    int
	wrap     func(string) string
	oldGuard []string
}

type walker struct {
	validations []admissionregistrationv1.Validation
	skipped     []Skipped
}

func (w *walker) walk(s *apiextensionsv1.JSONSchemaProps, n node) {
	if n.path == "status" {
		return
	}
	for _, r := range s.XValidations {
		w.rule(s, n, r)
	}
	w.required(s, n)
	for _, name := range sortedKeys(s.Properties) {
		prop := s.Properties[name]
		w.walk(&prop, n.field(name))
	}
	if s.Items != nil && s.Items.Schema != nil {
		w.walk(s.Items.Schema, n.item())
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		w.walk(s.AdditionalProperties.Schema, n.value())
	}
}

// field is the node of property name below n: reached only when the property is set.
func (n node) field(name string) node {
	sel, has := selector(n.cur, name)
	c := node{cur: sel, path: join(n.path, name), depth: n.depth}
	c.wrap = func(inner string) string { return n.wrap("!" + has + " || (" + inner + ")") }
	if n.old != "" {
		oldSel, oldHas := selector(n.old, name)
		c.old = oldSel
		c.oldGuard = append(append([]string{}, n.oldGuard...), oldHas)
	}
	return c
}

// item is the node of a list's items: the rule holds for every item.
func (n node) item() node {
	v := fmt.Sprintf("_i%d", n.depth+1) // no rule of ours names a variable with a leading _
	return node{cur: v, path: n.path + "[*]", depth: n.depth + 1, wrap: func(inner string) string {
		return n.wrap(n.cur + ".all(" + v + ", " + inner + ")")
	}}
}

// value is the node of a map's values: the rule holds for the value of every key.
func (n node) value() node {
	k := fmt.Sprintf("_k%d", n.depth+1)
	return node{cur: n.cur + "[" + k + "]", path: n.path + "[*]", depth: n.depth + 1, wrap: func(inner string) string {
		return n.wrap(n.cur + ".all(" + k + ", " + inner + ")")
	}}
}

// required carries the node's required properties: an object the v1beta2 schema calls
// incomplete would be stored, and every later v1beta2 write of it (the controllers' patches)
// refused. Other OpenAPI validations (enums, patterns, bounds) stay with each version's schema,
// as upstream's webhooks leave them.
func (w *walker) required(s *apiextensionsv1.JSONSchemaProps, n node) {
	for _, name := range s.Required {
		_, has := selector(n.cur, name)
		reason := metav1.StatusReasonInvalid
		w.validations = append(w.validations, admissionregistrationv1.Validation{
			Expression: n.wrap(has), Message: join(n.path, name) + ": Required value", Reason: &reason,
		})
	}
}

var transition = regexp.MustCompile(`\boldSelf\b`)

func (w *walker) rule(s *apiextensionsv1.JSONSchemaProps, n node, r apiextensionsv1.ValidationRule) {
	skip := func(why string) { w.skipped = append(w.skipped, Skipped{Path: n.path, Rule: r.Rule, Why: why}) }
	isTransition := transition.MatchString(r.Rule)
	switch {
	case r.OptionalOldSelf != nil && *r.OptionalOldSelf:
		skip("optionalOldSelf")
		return
	case isTransition && n.old == "":
		skip("a transition rule below a list or map")
		return
	case readsTimeField(s, r.Rule):
		skip("a date-time or duration field in its node")
		return
	}
	body := substitute(r.Rule, map[string]string{"self": n.cur})
	if isTransition {
		guard := strings.Join(append([]string{"oldObject != null"}, n.oldGuard...), " && ")
		body = "!(" + guard + ") || (" + substitute(r.Rule, map[string]string{"self": n.cur, "oldSelf": n.old}) + ")"
	}
	if len(s.Required) > 0 {
		// The schema checks the rules of a node only once its required fields are there (a
		// rule may read them); the missing field is reported by required.
		var present []string
		for _, name := range s.Required {
			_, has := selector(n.cur, name)
			present = append(present, has)
		}
		body = "!(" + strings.Join(present, " && ") + ") || (" + body + ")"
	}
	path := n.path
	if r.FieldPath != "" {
		path = strings.TrimPrefix(path+r.FieldPath, ".")
	}
	msg := r.Message
	if msg == "" {
		msg = "failed rule: " + r.Rule
	}
	if path != "" && !strings.HasPrefix(msg, path) {
		msg = path + ": " + msg
	}
	v := admissionregistrationv1.Validation{Expression: n.wrap(body), Message: msg}
	if r.MessageExpression != "" && n.depth == 0 {
		// Below a list or map self is an item the message cannot name (the iteration variable
		// is bound only inside the rule): there the static message stands. A message
		// expression that fails at run time falls back to the static message too.
		v.MessageExpression = substitute(r.MessageExpression, map[string]string{"self": n.cur, "oldSelf": n.old})
		if path != "" && !strings.Contains(r.MessageExpression, path) {
			v.MessageExpression = fmt.Sprintf("%q + (%s)", path+": ", v.MessageExpression)
		}
	}
	if r.Reason != nil && *r.Reason == apiextensionsv1.FieldValueForbidden {
		reason := metav1.StatusReasonForbidden
		v.Reason = &reason
	} else {
		reason := metav1.StatusReasonInvalid
		v.Reason = &reason
	}
	w.validations = append(w.validations, v)
}

// readsTimeField reports whether rule is on a date-time or duration string or selects a field
// of that format somewhere below its node (the CRD's CEL types those as timestamps and
// durations, a policy sees strings).
func readsTimeField(s *apiextensionsv1.JSONSchemaProps, rule string) bool {
	if isTime(s) {
		return true
	}
	names := map[string]bool{}
	timeFields(s, names)
	rule = presence.ReplaceAllString(rule, "") // has(self.expires) reads no value
	for name := range names {
		if regexp.MustCompile(`\.\s*` + regexp.QuoteMeta(name) + `\b`).MatchString(rule) {
			return true
		}
	}
	return false
}

func isTime(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.Format == "date-time" || s.Format == "duration"
}

// timeFields adds to names the property names below s whose values are date-time or duration.
func timeFields(s *apiextensionsv1.JSONSchemaProps, names map[string]bool) {
	for name, p := range s.Properties {
		if isTime(&p) {
			names[name] = true
		}
		timeFields(&p, names)
	}
	if s.Items != nil && s.Items.Schema != nil {
		timeFields(s.Items.Schema, names)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		timeFields(s.AdditionalProperties.Schema, names)
	}
}

// presence is a has() test of a field, which reads no value and so no time.
var presence = regexp.MustCompile(`\bhas\(\s*[^()]*\)`)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are CEL's reserved words, which cannot follow a dot.
var reserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true, "false": true, "for": true,
	"function": true, "if": true, "import": true, "in": true, "let": true, "loop": true, "package": true,
	"namespace": true, "null": true, "return": true, "true": true, "var": true, "void": true, "while": true,
}

// selector is the CEL selection of field name of cur and the test that it is set.
func selector(cur, name string) (sel, has string) {
	if identifier.MatchString(name) && !reserved[name] {
		return cur + "." + name, "has(" + cur + "." + name + ")"
	}
	q := fmt.Sprintf("%q", name)
	return cur + "[" + q + "]", "(" + q + " in " + cur + ")"
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// substitute replaces the identifiers of vars in a CEL expression by their values, each in
// parentheses. String literals and field selections (a.self) are left alone.
func substitute(expr string, vars map[string]string) string {
	var b strings.Builder
	prev := byte(0) // the last byte written that is not a space
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'':
			end := stringEnd(expr, i)
			b.WriteString(expr[i:end])
			i, prev = end, expr[end-1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(expr) && (expr[j] == '_' || expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= 'A' && expr[j] <= 'Z' || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			word := expr[i:j]
			if v, ok := vars[word]; ok && prev != '.' {
				b.WriteString("(" + v + ")")
			} else {
				b.WriteString(word)
			}
			i, prev = j, expr[j-1]
		default:
			b.WriteByte(c)
			if c != ' ' && c != '\t' && c != '\n' {
				prev = c
			}
			i++
		}
	}
	return b.String()
}

// stringEnd is the index after the string literal that starts at expr[i] (a quote, possibly
// tripled; a raw-string prefix r is part of the identifier before it and harmless).
func stringEnd(expr string, i int) int {
	q := expr[i : i+1]
	if strings.HasPrefix(expr[i:], q+q+q) {
		q = q + q + q
	}
	raw := i > 0 && (expr[i-1] == 'r' || expr[i-1] == 'R')
	for j := i + len(q); j < len(expr); j++ {
		if expr[j] == '\\' && !raw {
			j++
			continue
		}
		if strings.HasPrefix(expr[j:], q) {
			return j + len(q)
		}
	}
	return len(expr)
}
