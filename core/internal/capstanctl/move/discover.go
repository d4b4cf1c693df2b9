package move

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// secretKind is the Secret: attached to moved objects, and an identity's credentials.
var secretKind = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}

// attachedKinds are the built-in kinds that move when they belong to a moved object.
var attachedKinds = []schema.GroupVersionKind{
	secretKind,
	{Version: "v1", Kind: "ConfigMap"},
}

// Plan is a move worked out from the source before anything changes.
type Plan struct {
	// Namespace is the namespace whose objects move.
	Namespace string
	// Objects are the objects to move, in copy order: owners before dependents.
	Objects []*unstructured.Unstructured
	// CRDs names the CRD (<plural>.<group>) of each Cluster API kind in Objects, at the
	// version it was read at, which the target must serve.
	CRDs map[schema.GroupVersionKind]string
	// Global holds the UIDs of the shared objects among Objects: cluster-scoped ones a move
	// label selects and what they own (see globals). They are created in the target when
	// missing, and never updated, paused or deleted.
	Global map[types.UID]bool
}

// IsClusterAPIGroup reports whether objects of group are Cluster API objects:
// cluster.x-k8s.io itself or a provider group under it.
func IsClusterAPIGroup(group string) bool {
	core := clusterv1.GroupVersion.Group
	return group == core || strings.HasSuffix(group, "."+core)
}

// clusterctlLabel marks the CRDs whose objects upstream clusterctl's move discovers (any value):
// providers outside cluster.x-k8s.io's groups are found by it, as clusterctl finds them. Its
// inventory CRD lacks it, so inventory entries stay.
const clusterctlLabel = "clusterctl.cluster.x-k8s.io"

// clusterctlCoreLabel marks clusterctl's own CRDs (its inventory): never moved, although their
// group is under cluster.x-k8s.io, as upstream's move leaves them.
const clusterctlCoreLabel = "clusterctl.cluster.x-k8s.io/core"

// MovesKind reports whether the objects of crd move: a namespaced CRD of a Cluster API group or
// one labelled clusterctlLabel, but none of clusterctl's own.
func MovesKind(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if _, own := crd.Labels[clusterctlCoreLabel]; own || crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
		return false
	}
	_, labelled := crd.Labels[clusterctlLabel]
	return labelled || IsClusterAPIGroup(crd.Spec.Group)
}

// Discover reads what moves from namespace of the source: every object of a namespaced
// Cluster API CRD or CRD labelled clusterctlLabel, read at the version the CRD stores, and the Secrets and ConfigMaps
// Attached to them; and, as clusterctl, the objects of such cluster-scoped CRDs that a move
// label selects (on the CRD or the object), with what a MoveHierarchyLabel one owns among the
// namespace's and the infrastructure providers' Secrets (see globals). source must be
// uncached: Secrets are read once, and a cache would also hold every Secret of the cluster in memory.
func Discover(ctx context.Context, source client.Reader, namespace string) (*Plan, error) {
	crds, err := listCRDs(ctx, source)
	if err != nil {
		return nil, clusterclient.Explain(err, "the CustomResourceDefinitions of the source management cluster")
	}
	plan := &Plan{Namespace: namespace, CRDs: map[schema.GroupVersionKind]string{}}
	var kinds []schema.GroupVersionKind
	var globalKinds []globalKind
	crdNames := map[schema.GroupVersionKind]string{}
	for _, crd := range sortedCRDs(crds) {
		version := readVersion(crd)
		switch {
		case version == "": // serves nothing, so holds nothing that can be read
		case MovesKind(crd):
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
			kinds = append(kinds, gvk)
			crdNames[gvk] = crd.Name
		case movesGlobalKind(crd):
			globalKinds = append(globalKinds, newGlobalKind(crd, version))
		}
	}
	lists, err := listKinds(ctx, source, append(kinds, attachedKinds...), namespace)
	if err != nil {
		return nil, err
	}
	var moved, candidates []*unstructured.Unstructured
	for i, objs := range lists {
		if i >= len(kinds) {
			candidates = append(candidates, objs...)
			continue
		}
		if len(objs) > 0 {
			plan.CRDs[kinds[i]] = crdNames[kinds[i]]
		}
		moved = append(moved, objs...)
	}
	g, err := discoverGlobals(ctx, source, globalKinds, plan)
	if err != nil {
		return nil, err
	}
	all := append(slices.Clone(moved), g.objects...)
	all = append(all, Attached(append(moved, g.roots...), candidates)...)
	if len(g.roots) > 0 {
		secrets, err := providerSecrets(ctx, source, namespace)
		if err != nil {
			return nil, err
		}
		all = append(all, Attached(g.roots, secrets)...)
	}
	if plan.Objects, err = Order(all); err != nil {
		return nil, err
	}
	markGlobal(plan)
	return plan, nil
}

// readVersion is the version to read a CRD's objects at: the storage version, so
// nothing is converted on the way, unless it is no longer served.
func readVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	served := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage && v.Served {
			return v.Name
		}
		if v.Served && served == "" {
			served = v.Name
		}
	}
	return served
}

// listCRDs reads the CRDs as unstructured and converts them, because the clients
// capstanctl builds carry no apiextensions types in their scheme.
func listCRDs(ctx context.Context, c client.Reader) (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"))
	if err := c.List(ctx, list); err != nil {
		return nil, err
	}
	out := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list.Items))
	for _, item := range list.Items {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, crd); err != nil {
			return nil, fmt.Errorf("decoding CustomResourceDefinition %s: %w", item.GetName(), err)
		}
		out[crd.Name] = crd
	}
	return out, nil
}

// sortedCRDs returns crds sorted by name, so discovery reads kinds in a stable order.
func sortedCRDs(crds map[string]*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(crds))
	for _, crd := range crds {
		out = append(out, crd)
	}
	slices.SortFunc(out, func(a, b *apiextensionsv1.CustomResourceDefinition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// listKinds lists the objects of each kind of gvks in namespace, all at once: the API server
// may take a moment over the first list of a kind (it makes sure its cache is current
// first), and a management cluster serves dozens of Cluster API kinds.
func listKinds(ctx context.Context, c client.Reader, gvks []schema.GroupVersionKind, namespace string) ([][]*unstructured.Unstructured, error) {
	lists := make([][]*unstructured.Unstructured, len(gvks))
	errs := make([]error, len(gvks))
	var wg sync.WaitGroup
	for i, gvk := range gvks {
		wg.Go(func() { lists[i], errs[i] = listObjects(ctx, c, gvk, namespace) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first is enough: the others usually share its cause
		}
	}
	return lists, nil
}

// listObjects lists the objects of gvk in namespace.
func listObjects(ctx context.Context, c client.Reader, gvk schema.GroupVersionKind, namespace string) ([]*unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, clusterclient.Explain(err, fmt.Sprintf("the %s objects of namespace %s", gvk.Kind, namespace))
	}
	out := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		o := &list.Items[i]
		o.SetGroupVersionKind(gvk) // list items of built-in kinds may come without apiVersion and kind
		out = append(out, o)
	}
	return out, nil
}
