package conformance

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"capstan.dev/contracts/contract"
)

// The contract rules, named as the upstream contract pages name them, so that a
// failure can be looked up.
const (
	ruleCRDName       = "%s, %sList resource definition (CRD name from contract.CalculateCRDName; the core GETs exactly this name)"
	ruleScope         = "All resources: scope (namespaced)"
	ruleContractLabel = "All resources: APIVersion field value (CRD label cluster.x-k8s.io/v1beta2: <served versions joined by _>)"
	ruleTemplate      = "%sTemplate, %sTemplateList resource definition (mandatory)"
	ruleSchema        = "%s: contract fields (the API server must neither reject nor prune what the core reads)"
)

// crdProblems lists how crd breaks the resource-definition rules for kind gvk
// (role names the contract role in messages: "InfraMachine"). With checkVersion,
// gvk.Version must be served and labelled: it is the version the kit creates
// objects in.
func crdProblems(crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind, role string, checkVersion bool) []string {
	var out []string
	add := func(rule, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", rule, fmt.Sprintf(format, args...)))
	}
	nameRule := fmt.Sprintf(ruleCRDName, role, role)
	if want := contract.CalculateCRDName(gvk.Group, gvk.Kind); crd.Name != want {
		add(nameRule, "CRD is named %s, want %s", crd.Name, want)
	}
	if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
		add(nameRule, "CRD %s serves %s.%s, want %s", crd.Name, crd.Spec.Names.Kind, crd.Spec.Group, gvk.GroupKind())
	}
	if crd.Spec.Names.ListKind != gvk.Kind+"List" {
		add(nameRule, "spec.names.listKind is %q, want %q", crd.Spec.Names.ListKind, gvk.Kind+"List")
	}
	if crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
		add(ruleScope, "CRD %s has scope %q, want Namespaced", crd.Name, crd.Spec.Scope)
	}
	served := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served[v.Name] = true
		}
	}
	if checkVersion && !served[gvk.Version] {
		add(nameRule, "CRD %s does not serve version %s (served: %s)", crd.Name, gvk.Version, strings.Join(sortedKeys(served), ", "))
	}

	label := contract.V1Beta2.Label()
	value, ok := crd.Labels[label]
	if !ok {
		if v1, old := crd.Labels[contract.V1Beta1.Label()]; old {
			add(ruleContractLabel, "CRD %s declares only %s=%s: the kit checks contract v1beta2, which needs the label %s",
				crd.Name, contract.V1Beta1.Label(), v1, label)
		} else {
			add(ruleContractLabel, "CRD %s has no label %s: the core cannot tell which contract, or which version, to use", crd.Name, label)
		}
		return out
	}
	if _, err := contract.VersionFromLabels(crd.Name, map[string]string{label: value}); err != nil {
		add(ruleContractLabel, "%v", err)
		return out
	}
	labelled := strings.Split(value, "_")
	for _, v := range labelled {
		if !served[v] {
			add(ruleContractLabel, "label %s=%s names version %s, which CRD %s does not serve", label, value, v, crd.Name)
		}
	}
	if checkVersion && !slices.Contains(labelled, gvk.Version) {
		add(ruleContractLabel, "label %s=%s does not name %s, the version under test: the core would not use it", label, value, gvk.Version)
	}
	return out
}

// schemaField is one contract path and the OpenAPI type the core needs there.
// "[]" in a path stands for the items of an array.
type schemaField struct {
	path string
	typ  string // string, boolean, integer, object, array
	// required fields must be declared (or preserved); an optional field may be
	// missing, and then so are the fields under it.
	required bool
}

// schemaProblems lists the contract fields that the served schema of version
// declares with another type, or prunes although the contract requires them.
func schemaProblems(crd *apiextensionsv1.CustomResourceDefinition, version, role string, fields []schemaField) []string {
	rule := fmt.Sprintf(ruleSchema, role)
	var root *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Schema != nil {
			root = v.Schema.OpenAPIV3Schema
		}
	}
	if root == nil {
		return []string{fmt.Sprintf("%s: CRD %s has no schema for version %s", rule, crd.Name, version)}
	}
	var out []string
	// skip holds fields whose children are not looked at: optional fields the
	// schema does not have, and fields already reported.
	skip := map[string]bool{}
	for _, f := range fields {
		if parent := parentPath(f.path); parent != "" && skip[parent] {
			skip[f.path] = true
			continue
		}
		node, preserved, at := lookupSchema(root, f.path)
		switch {
		case preserved:
			// x-kubernetes-preserve-unknown-fields: stored as written, checked on objects.
		case node == nil && f.required:
			skip[f.path] = true
			out = append(out, fmt.Sprintf("%s: %s is not in the schema of %s (nothing declares %q under %s, and it does not preserve unknown fields): the API server prunes it",
				rule, f.path, version, strings.TrimPrefix(strings.TrimPrefix(f.path, at), "."), orRoot(at)))
		case node == nil:
			skip[f.path] = true
		case node.Type != f.typ:
			skip[f.path] = true
			got := node.Type
			if got == "" && node.XIntOrString {
				got = "int-or-string"
			}
			out = append(out, fmt.Sprintf("%s: %s is declared as %q in the schema of %s, the contract reads %q", rule, f.path, got, version, f.typ))
		}
	}
	return out
}

// lookupSchema walks path ("status.addresses[].type") down the schema. It returns
// the node, or preserved=true when an ancestor keeps unknown fields, or nil and
// the deepest declared ancestor's path when the schema does not have it.
func lookupSchema(root *apiextensionsv1.JSONSchemaProps, path string) (node *apiextensionsv1.JSONSchemaProps, preserved bool, at string) {
	node = root
	walked := ""
	descend := func(seg string) {
		switch {
		case seg == "[]":
			walked += seg
		case walked == "":
			walked = seg
		default:
			walked += "." + seg
		}
	}
	for _, seg := range splitPath(path) {
		if seg == "[]" {
			if node.Items == nil || node.Items.Schema == nil {
				return nil, preservesUnknown(node), walked
			}
			node = node.Items.Schema
			descend(seg)
			continue
		}
		if child, ok := node.Properties[seg]; ok {
			node = &child
			descend(seg)
			continue
		}
		if ap := node.AdditionalProperties; ap != nil && ap.Schema != nil {
			node = ap.Schema
			descend(seg)
			continue
		}
		return nil, preservesUnknown(node), walked
	}
	return node, false, ""
}

func preservesUnknown(n *apiextensionsv1.JSONSchemaProps) bool {
	if n.XPreserveUnknownFields != nil && *n.XPreserveUnknownFields {
		return true
	}
	return n.AdditionalProperties != nil && n.AdditionalProperties.Allows && n.AdditionalProperties.Schema == nil
}

// splitPath turns "status.addresses[].type" into status, addresses, [], type.
func splitPath(p string) []string {
	var out []string
	for _, seg := range strings.Split(p, ".") {
		if name, ok := strings.CutSuffix(seg, "[]"); ok {
			out = append(out, name, "[]")
			continue
		}
		out = append(out, seg)
	}
	return out
}

// parentPath is the enclosing field: status.addresses[].type → status.addresses[],
// status.addresses[] → status.addresses.
func parentPath(p string) string {
	if items, ok := strings.CutSuffix(p, "[]"); ok {
		return items
	}
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return ""
	}
	return p[:i]
}

func orRoot(p string) string {
	if p == "" {
		return "the object's root"
	}
	return p
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
