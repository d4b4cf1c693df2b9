package patches

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// ExternalPatcher calls the Runtime Extensions of a class's external patches. The topology
// controller implements it with the Runtime SDK client, which keeps this package free of I/O.
// handler is the full handler name (<handler>.<ExtensionConfig>), namespace the Cluster's (the
// ExtensionConfig's namespaceSelector is matched against it). An answer of status Failure must be
// returned as an error; a call skipped by failurePolicy Ignore returns an empty Success.
type ExternalPatcher interface {
	GeneratePatches(ctx context.Context, handler, namespace string, req *hooksv1.GeneratePatchesRequest) (*hooksv1.GeneratePatchesResponse, error)
	ValidateTopology(ctx context.Context, handler, namespace string, req *hooksv1.ValidateTopologyRequest) (*hooksv1.ValidateTopologyResponse, error)
}

// generateExternal calls the patch's GeneratePatches handler with every item and applies what
// it answers; each call gets fresh UIDs, as upstream's, so an extension cannot keep state by UID.
func generateExternal(ctx context.Context, ext ExternalPatcher, c *clusterv1.Cluster, cc *clusterv1.ClusterClass,
	p *clusterv1.ClusterClassPatch, items []*item) error {
	req := &hooksv1.GeneratePatchesRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.GeneratePatches, "Request")}
	req.Settings = p.External.Settings
	var err error
	if req.Variables, err = globalVariables(c, cc, p.Name); err != nil {
		return err
	}
	byUID := map[types.UID]*item{}
	for _, it := range items {
		uid := uuid.NewUUID()
		byUID[uid] = it
		ri, err := requestItem(cc, p.Name, it)
		if err != nil {
			return err
		}
		req.Items = append(req.Items, hooksv1.GeneratePatchesRequestItem{UID: uid, HolderReference: ri.HolderReference, Object: ri.Object, Variables: ri.Variables})
	}
	resp, err := ext.GeneratePatches(ctx, p.External.GeneratePatchesExtension, c.Namespace, req)
	if err != nil {
		return err
	}
	for i, ri := range resp.Items {
		it, ok := byUID[ri.UID]
		if !ok {
			return fmt.Errorf("%s answered GeneratePatches items[%d] with uid %q, which is not one of the request's: the extension must echo the request items' uids",
				p.External.GeneratePatchesExtension, i, ri.UID)
		}
		if err := applyExternalPatch(it, ri); err != nil {
			return fmt.Errorf("%s's GeneratePatches items[%d] (%s) on %s: %w", p.External.GeneratePatchesExtension, i, ri.PatchType, it.what, err)
		}
	}
	return nil
}

// applyExternalPatch applies one answered patch to a copy of the item and keeps, as upstream,
// only the copy's spec and spec.template.metadata labels and annotations: an extension cannot
// rename, retype or relabel the template itself.
func applyExternalPatch(it *item, ri hooksv1.GeneratePatchesResponseItem) error {
	doc, err := json.Marshal(it.obj.Object)
	if err != nil {
		return err
	}
	switch ri.PatchType {
	case hooksv1.JSONPatchType:
		decoded, err := jsonpatch.DecodePatch(ri.Patch)
		if err != nil {
			return fmt.Errorf("patch is not a JSON patch: %w", err)
		}
		if doc, err = decoded.Apply(doc); err != nil {
			return err
		}
	case hooksv1.JSONMergePatchType:
		if doc, err = jsonpatch.MergePatch(doc, ri.Patch); err != nil {
			return fmt.Errorf("patch is not a JSON merge patch: %w", err)
		}
	default:
		return fmt.Errorf("patchType %q is neither %s nor %s", ri.PatchType, hooksv1.JSONPatchType, hooksv1.JSONMergePatchType)
	}
	patched := &unstructured.Unstructured{}
	if err := patched.UnmarshalJSON(doc); err != nil {
		return fmt.Errorf("the patched template is not an object: %w", err)
	}
	if spec, ok := patched.Object["spec"]; ok {
		it.obj.Object["spec"] = spec
	} else {
		delete(it.obj.Object, "spec")
	}
	return nil
}

// validateExternal calls each external patch's ValidateTopology handler, in class order, with the
// patched templates (no UIDs: nothing is answered per item).
func validateExternal(ctx context.Context, ext ExternalPatcher, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, items []*item) error {
	for i := range cc.Spec.Patches {
		p := &cc.Spec.Patches[i]
		if p.External == nil || p.External.ValidateTopologyExtension == "" {
			continue
		}
		req := &hooksv1.ValidateTopologyRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.ValidateTopology, "Request")}
		req.Settings = p.External.Settings
		var err error
		if req.Variables, err = globalVariables(c, cc, p.Name); err != nil {
			return err
		}
		for _, it := range items {
			ri, err := requestItem(cc, p.Name, it)
			if err != nil {
				return err
			}
			req.Items = append(req.Items, ri)
		}
		if _, err := ext.ValidateTopology(ctx, p.External.ValidateTopologyExtension, c.Namespace, req); err != nil {
			return fmt.Errorf("ClusterClass %s patch %q (spec.patches[%d]): %w", cc.Name, p.Name, i, err)
		}
	}
	return nil
}

// globalVariables are a request's variables: builtin.cluster and the Cluster's variables that the
// patch defines.
func globalVariables(c *clusterv1.Cluster, cc *clusterv1.ClusterClass, from string) ([]hooksv1.Variable, error) {
	out, err := wireVariable("builtin", map[string]any{"cluster": clusterBuiltin(c)})
	if err != nil {
		return nil, err
	}
	vars := []hooksv1.Variable{out}
	for _, v := range c.Spec.Topology.Variables {
		if definedFrom(cc, v.Name, from) {
			vars = append(vars, hooksv1.Variable{Name: v.Name, Value: *v.Value.DeepCopy()})
		}
	}
	return vars, nil
}

// requestItem is an item as the extension sees it: the template, where it goes, and its own
// variables (its builtin, e.g. builtin.controlPlane, and the overrides that the patch defines).
func requestItem(cc *clusterv1.ClusterClass, from string, it *item) (*hooksv1.ValidateTopologyRequestItem, error) {
	raw, err := json.Marshal(it.obj.Object)
	if err != nil {
		return nil, err
	}
	b, err := wireVariable("builtin", it.builtin)
	if err != nil {
		return nil, err
	}
	ri := &hooksv1.ValidateTopologyRequestItem{HolderReference: it.holder, Object: runtime.RawExtension{Raw: raw}, Variables: []hooksv1.Variable{b}}
	for _, v := range it.overrides {
		if definedFrom(cc, v.Name, from) {
			ri.Variables = append(ri.Variables, hooksv1.Variable{Name: v.Name, Value: *v.Value.DeepCopy()})
		}
	}
	return ri, nil
}

func wireVariable(name string, v any) (hooksv1.Variable, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return hooksv1.Variable{}, fmt.Errorf("encoding variable %s: %w", name, err)
	}
	return hooksv1.Variable{Name: name, Value: apiextensionsv1.JSON{Raw: raw}}, nil
}

// definedFrom says whether the class's status.variables has a definition of name from from
// ("inline", or an external patch's name): a patch sees only the variables it defines (upstream
// since v1beta2). A variable the status does not list at all is given to inline patches, so a
// class whose status is not computed yet patches as it did before discovery existed.
func definedFrom(cc *clusterv1.ClusterClass, name, from string) bool {
	for _, sv := range cc.Status.Variables {
		if sv.Name != name {
			continue
		}
		for _, d := range sv.Definitions {
			if d.From == from {
				return true
			}
		}
		return false
	}
	return from == clusterv1.VariableDefinitionFromInline
}
