package machineset

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// selectorFor returns the MachineSet's selector. An empty selector would match every Machine of
// the namespace; it is read as "the Machines this MachineSet created" (the set-name label) instead,
// which is what upstream's defaulting webhook writes into such a selector.
func selectorFor(ms *clusterv1.MachineSet) (labels.Selector, error) {
	return SelectorOrDefault(&ms.Spec.Selector, clusterv1.MachineSetNameLabel, ms.Name)
}

// SelectorOrDefault parses sel, or, when sel is empty, returns the selector of the nameLabel
// label with name (cut to a label value) that the owner puts on everything it creates.
func SelectorOrDefault(sel *clusterv1.LabelSelector, nameLabel, name string) (labels.Selector, error) {
	if sel.IsEmpty() {
		return labels.SelectorFromSet(labels.Set{nameLabel: LabelValue(name)}), nil
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel.ToMetav1())
	if err != nil {
		return nil, fmt.Errorf("spec.selector cannot be parsed: %w", err)
	}
	return parsed, nil
}

// InvalidSelectorMessage says why an owner must not create anything: its spec.selector cannot be
// parsed, or it does not select objects carrying created, the labels the owner puts on what it
// creates. Such an owner would never count its own creations and would create without end. It
// returns "" when the selector is usable. Admission refuses both cases; this catches what it let
// through (objects stored before the rules existed, or written around them).
func InvalidSelectorMessage(sel labels.Selector, parseErr error, kind string, created map[string]string) string {
	if parseErr != nil {
		return fmt.Sprintf("%v: nothing is created until spec.selector is fixed; use matchLabels, or matchExpressions "+
			"with the operators In, NotIn (with values), Exists or DoesNotExist (without values)", parseErr)
	}
	reqs, _ := sel.Requirements()
	for _, req := range reqs {
		if !req.Matches(labels.Set(created)) {
			return fmt.Sprintf("spec.selector requirement %q does not select the %s's own Machines, whose labels come from "+
				"spec.template.metadata.labels: the %s would not count them and would create Machines without end, so it "+
				"creates none; make spec.template.metadata.labels satisfy every requirement of spec.selector", req.String(), kind, kind)
		}
	}
	return ""
}
