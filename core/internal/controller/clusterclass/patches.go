package clusterclass

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// arrayIndex matches a JSON pointer segment that addresses an array item.
var arrayIndex = regexp.MustCompile(`/([0-9]+|-)(/|$)`)

// validatePatches checks the rules of inline patches that depend on op, which the CRD cannot
// check within the apiserver's CEL budget (see clusterv1.JSONPatch), and that valueFrom.variable
// names a variable of the class or a builtin one, as upstream's webhook does.
func validatePatches(cc *clusterv1.ClusterClass) field.ErrorList {
	defined := map[string]bool{}
	for _, v := range cc.Spec.Variables {
		defined[v.Name] = true
	}
	var errs field.ErrorList
	for i, p := range cc.Spec.Patches {
		for j, d := range p.Definitions {
			for k, jp := range d.JSONPatches {
				path := field.NewPath("spec", "patches").Index(i).Child("definitions").Index(j).Child("jsonPatches").Index(k)
				errs = append(errs, validateJSONPatch(path, jp, defined)...)
			}
		}
	}
	return errs
}

func validateJSONPatch(path *field.Path, jp clusterv1.JSONPatch, defined map[string]bool) field.ErrorList {
	var errs field.ErrorList
	hasValue, hasFrom := jp.Value != nil, jp.ValueFrom != nil
	switch {
	case jp.Op == "remove" && (hasValue || hasFrom):
		errs = append(errs, field.Forbidden(path, "a remove patch takes neither value nor valueFrom: remove them"))
	case jp.Op != "remove" && hasValue == hasFrom:
		errs = append(errs, field.Invalid(path, jp.Op, fmt.Sprintf("an %s patch needs exactly one of value or valueFrom: set one", jp.Op)))
	}
	if jp.Op != "add" && arrayIndex.MatchString(jp.Path) {
		errs = append(errs, field.Invalid(path.Child("path"), jp.Path, fmt.Sprintf(
			"%s cannot address an array item: only add may use an index, /0 to prepend or /- to append; %s the whole array instead", jp.Op, jp.Op)))
	}
	if hasFrom && jp.ValueFrom.Variable != "" {
		v := jp.ValueFrom.Variable
		root, _, _ := strings.Cut(strings.SplitN(v, "[", 2)[0], ".")
		if root != "builtin" && !defined[root] {
			errs = append(errs, field.Invalid(path.Child("valueFrom", "variable"), v, fmt.Sprintf(
				"variable %q is not defined in spec.variables: define it, or use a builtin variable such as builtin.cluster.name", root)))
		}
	}
	return errs
}
