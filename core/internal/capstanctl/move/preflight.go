package move

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrPreflight is in the chain of every error that stops a move before it changes anything.
var ErrPreflight = errors.New("the move cannot start; nothing was changed")

// Target is what the preflight learnt about the target management cluster.
type Target struct {
	// StatusSubresource says, per Cluster API kind, whether the target's CRD has the status
	// subresource: the create then drops status, which is written separately.
	StatusSubresource map[schema.GroupKind]bool
	// Copies are the copies an earlier, interrupted move left in the target, by source UID.
	Copies map[types.UID]*unstructured.Unstructured
}

// Preflight checks, reading only, that the target can take every object of plan: no
// object is being deleted in the source, the target serves each kind at the version it
// was read at, and no object of the same kind and name exists in the target unless it is
// a copy of the same source object. Every problem is listed in one error wrapping
// ErrPreflight; initCommand is the command that installs the providers in the target.
func Preflight(ctx context.Context, target client.Reader, plan *Plan, initCommand string) (*Target, error) {
	var problems []string
	for _, o := range plan.Objects {
		if o.GetDeletionTimestamp() != nil {
			problems = append(problems, fmt.Sprintf("%s is being deleted in the source: wait until it is gone, then move", describe(o)))
		}
	}
	crds, err := listCRDs(ctx, target)
	if err != nil {
		return nil, explainTarget(err, "the CustomResourceDefinitions")
	}
	t := &Target{StatusSubresource: map[schema.GroupKind]bool{}, Copies: map[types.UID]*unstructured.Unstructured{}}
	readable := map[schema.GroupVersionKind]bool{}
	for _, gvk := range attachedKinds {
		readable[gvk] = true
	}
	for _, gvk := range sortedKinds(plan.CRDs) {
		name := plan.CRDs[gvk]
		crd, ok := crds[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("the target has no CRD %s for the %s objects: install the providers there first with '%s'",
				name, gvk.Kind, initCommand))
			continue
		}
		i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
			return v.Name == gvk.Version && v.Served
		})
		if i < 0 {
			problems = append(problems, fmt.Sprintf("the target's CRD %s does not serve %s, the version the source stores %s objects at: "+
				"install the same provider versions as in the source with '%s'", name, gvk.Version, gvk.Kind, initCommand))
			continue
		}
		sub := crd.Spec.Versions[i].Subresources
		t.StatusSubresource[gvk.GroupKind()] = sub != nil && sub.Status != nil
		readable[gvk] = true
	}
	conflicts, err := t.findCopies(ctx, target, plan, readable)
	if err != nil {
		return nil, err
	}
	problems = append(problems, conflicts...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n  - %s", ErrPreflight, strings.Join(problems, "\n  - "))
	}
	return t, nil
}

// findCopies reads the namespace in the target for the kinds it serves, records copies
// of the plan's objects and returns a problem for each other object in the way.
func (t *Target) findCopies(ctx context.Context, target client.Reader, plan *Plan, readable map[schema.GroupVersionKind]bool) ([]string, error) {
	kinds := slices.SortedFunc(maps.Keys(readable), func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	lists, err := listKinds(ctx, target, kinds, plan.Namespace)
	if err != nil {
		return nil, explainTarget(err, "namespace "+plan.Namespace)
	}
	existing := map[schema.GroupVersionKind]map[string]*unstructured.Unstructured{}
	for i, gvk := range kinds {
		existing[gvk] = map[string]*unstructured.Unstructured{}
		for _, o := range lists[i] {
			existing[gvk][o.GetName()] = o
		}
	}
	var problems []string
	for _, o := range plan.Objects {
		got, ok := existing[o.GroupVersionKind()][o.GetName()]
		switch {
		case !ok, plan.Global[o.GetUID()]: // one the target has is used as it is
		case got.GetUID() == o.GetUID():
			return []string{fmt.Sprintf("%s has the same UID in the source and the target: --to-kubeconfig points at the source "+
				"management cluster; pass the kubeconfig of the cluster to move to", describe(o))}, nil
		case got.GetAnnotations()[MovedFromUIDAnnotation] == string(o.GetUID()):
			t.Copies[o.GetUID()] = got
		default:
			problems = append(problems, fmt.Sprintf("%s already exists in the target and is not a copy of the source's: "+
				"delete it from the target or move another namespace", describe(o)))
		}
	}
	return problems, nil
}

func sortedKinds(crds map[schema.GroupVersionKind]string) []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(crds))
	for gvk := range crds {
		out = append(out, gvk)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// explainTarget wraps an error reading what from the target with the flags that choose it.
func explainTarget(err error, what string) error {
	return fmt.Errorf("reading %s in the target management cluster: %w: is it reachable with --to-kubeconfig/--to-context?", what, err)
}
