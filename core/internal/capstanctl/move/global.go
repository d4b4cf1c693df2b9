package move

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/inventory"
)

// clusterctl's move labels, on a CRD (every object of its kind) or on one object. A
// cluster-scoped object (a provider's ClusterIdentity) moves only when one of them says so.
const (
	// MoveLabel moves the object even though no Cluster owns it.
	MoveLabel = "clusterctl.cluster.x-k8s.io/move"
	// MoveHierarchyLabel moves the object and everything it owns (an identity's credentials
	// Secret in its provider's namespace).
	MoveHierarchyLabel = "clusterctl.cluster.x-k8s.io/move-hierarchy"
)

// movesGlobalKind reports whether the objects of a cluster-scoped crd may move: a Cluster API
// group's or one labelled clusterctlLabel, none of clusterctl's own.
func movesGlobalKind(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if _, own := crd.Labels[clusterctlCoreLabel]; own || crd.Spec.Scope != apiextensionsv1.ClusterScoped {
		return false
	}
	_, labelled := crd.Labels[clusterctlLabel]
	return labelled || IsClusterAPIGroup(crd.Spec.Group)
}

// globalKind is a cluster-scoped kind whose objects may move, with its CRD's move labels.
type globalKind struct {
	gvk                   schema.GroupVersionKind
	crd                   string
	moveAll, hierarchyAll bool
}

func newGlobalKind(crd *apiextensionsv1.CustomResourceDefinition, version string) globalKind {
	_, move := crd.Labels[MoveLabel]
	_, hierarchy := crd.Labels[MoveHierarchyLabel]
	return globalKind{
		gvk: schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}, crd: crd.Name,
		moveAll: move || hierarchy, hierarchyAll: hierarchy,
	}
}

// globals are the cluster-scoped objects a move takes along: shared by the Clusters of every
// namespace, so, as clusterctl does, a move creates them in the target when they are missing
// there, never updates or deletes them, and never pauses them.
type globals struct {
	// objects move because their CRD or they themselves carry a move label; roots are those
	// of them whose descendants move too (MoveHierarchyLabel).
	objects, roots []*unstructured.Unstructured
}

// discoverGlobals lists the objects of kinds and keeps those a move label selects, recording
// in plan.CRDs the kinds that have any.
func discoverGlobals(ctx context.Context, source client.Reader, kinds []globalKind, plan *Plan) (globals, error) {
	var g globals
	for _, k := range kinds {
		objs, err := listObjects(ctx, source, k.gvk, "")
		if err != nil {
			return g, err
		}
		for _, o := range objs {
			_, move := o.GetLabels()[MoveLabel]
			_, hierarchy := o.GetLabels()[MoveHierarchyLabel]
			if !k.moveAll && !move && !hierarchy {
				continue
			}
			plan.CRDs[k.gvk] = k.crd
			g.objects = append(g.objects, o)
			if k.hierarchyAll || hierarchy {
				g.roots = append(g.roots, o)
			}
		}
	}
	return g, nil
}

// providerSecrets are the Secrets of the infrastructure providers' namespaces (clusterctl's
// inventory says which) other than namespace, where identities keep their credentials; a
// management cluster without the inventory has none.
func providerSecrets(ctx context.Context, source client.Reader, namespace string) ([]*unstructured.Unstructured, error) {
	entries, err := inventory.Read(ctx, source)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{namespace: true}
	var out []*unstructured.Unstructured
	for _, e := range entries {
		if e.Type != clusterctl.InfrastructureProvider || seen[e.Namespace] {
			continue
		}
		seen[e.Namespace] = true
		objs, err := listObjects(ctx, source, secretKind, e.Namespace)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// markGlobal records in plan.Global the cluster-scoped objects of plan.Objects and those
// under one of them, by owner references. plan.Objects must be in copy order (owners first).
func markGlobal(plan *Plan) {
	plan.Global = map[types.UID]bool{}
	for _, o := range plan.Objects {
		if o.GetNamespace() == "" || ownedByAny(o, plan.Global) {
			plan.Global[o.GetUID()] = true
		}
	}
}

// copyGlobal returns the target's object of desired's name, creating it from desired when
// the target has none: a shared object the target holds already is used as it is.
func (res *Copied) copyGlobal(ctx context.Context, target client.Client, desired, src *unstructured.Unstructured, separateStatus bool) (*unstructured.Unstructured, error) {
	if ns := desired.GetNamespace(); ns != "" {
		if err := ensureNamespace(ctx, target, ns); err != nil {
			return nil, err
		}
	}
	existing, err := get(ctx, target, desired)
	if err == nil {
		res.Unchanged++
		return existing, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	created := desired.DeepCopy()
	if err := target.Create(ctx, created); apierrors.IsAlreadyExists(err) {
		res.Unchanged++
		return get(ctx, target, desired)
	} else if err != nil {
		return nil, err
	}
	res.Created++
	if separateStatus {
		if err := writeStatus(ctx, target, created, src); err != nil {
			return nil, fmt.Errorf("writing its status: %w", err)
		}
	}
	return created, nil
}

// split parts plan.Objects into the objects of the namespace and the global ones.
func (p *Plan) split() (owned, shared []*unstructured.Unstructured) {
	for _, o := range p.Objects {
		if p.Global[o.GetUID()] {
			shared = append(shared, o)
		} else {
			owned = append(owned, o)
		}
	}
	return owned, shared
}
