package patches

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/core/internal/topology/desired"
)

// fakePatcher answers GeneratePatches with gen and records what it was sent.
type fakePatcher struct {
	gen       func(req *hooksv1.GeneratePatchesRequest) *hooksv1.GeneratePatchesResponse
	validate  error
	genReqs   []*hooksv1.GeneratePatchesRequest
	validated []string
}

func (f *fakePatcher) GeneratePatches(_ context.Context, handler, _ string, req *hooksv1.GeneratePatchesRequest) (*hooksv1.GeneratePatchesResponse, error) {
	f.genReqs = append(f.genReqs, req)
	return f.gen(req), nil
}

func (f *fakePatcher) ValidateTopology(_ context.Context, handler, _ string, _ *hooksv1.ValidateTopologyRequest) (*hooksv1.ValidateTopologyResponse, error) {
	f.validated = append(f.validated, handler)
	if f.validate != nil {
		return nil, f.validate
	}
	return &hooksv1.ValidateTopologyResponse{}, nil
}

func setField(path, value string) clusterv1.PatchDefinition {
	return machineTemplatePatch([]string{"*"}, clusterv1.JSONPatch{Op: "add", Path: "/spec/template/spec/" + path, Value: ptrJSON(`"` + value + `"`)})
}

func ptrJSON(s string) *apiextensionsv1.JSON {
	v := js(s)
	return &v
}

// copyFieldPatcher answers, for every DevMachineTemplate item, a JSON patch setting spec.template.spec.seen
// to what "order" held in the request, then order to "external"; and a merge patch that also tries
// to relabel the template itself (which must not be kept).
func copyFieldPatcher(t *testing.T) *fakePatcher {
	return &fakePatcher{gen: func(req *hooksv1.GeneratePatchesRequest) *hooksv1.GeneratePatchesResponse {
		resp := &hooksv1.GeneratePatchesResponse{}
		for _, it := range req.Items {
			u := &unstructured.Unstructured{}
			require.NoError(t, u.UnmarshalJSON(it.Object.Raw))
			if u.GetKind() != "DevMachineTemplate" {
				continue
			}
			order, _, _ := unstructured.NestedString(u.Object, "spec", "template", "spec", "order")
			p, _ := json.Marshal([]map[string]any{
				{"op": "add", "path": "/spec/template/spec/seen", "value": order},
				{"op": "add", "path": "/spec/template/spec/order", "value": "external"},
			})
			resp.Items = append(resp.Items, hooksv1.GeneratePatchesResponseItem{UID: it.UID, PatchType: hooksv1.JSONPatchType, Patch: p})
			resp.Items = append(resp.Items, hooksv1.GeneratePatchesResponseItem{UID: it.UID, PatchType: hooksv1.JSONMergePatchType,
				Patch: []byte(`{"metadata":{"labels":{"stolen":"yes"}},"spec":{"template":{"metadata":{"labels":{"kept":"yes"}}}}}`)})
		}
		return resp
	}}
}

func TestApplyWith_InlineAndExternalPatchesRunInClassOrderEachSeeingTheLastOutput(t *testing.T) {
	c, tpls, names := fixture()
	cc := classWith(
		clusterv1.ClusterClassPatch{Name: "first", Definitions: []clusterv1.PatchDefinition{setField("order", "inline-1")}},
		clusterv1.ClusterClassPatch{Name: "ext", External: &clusterv1.ExternalPatchDefinition{GeneratePatchesExtension: "gen.ext", ValidateTopologyExtension: "val.ext"}},
		clusterv1.ClusterClassPatch{Name: "last", Definitions: []clusterv1.PatchDefinition{setField("final", "inline-2")}},
	)
	f := copyFieldPatcher(t)
	require.NoError(t, ApplyWith(context.Background(), f, c, cc, tpls, names, desired.Versions{}))
	w := tpls.MachineDeployments["md-0"].Infrastructure
	require.Equal(t, "inline-1", get(t, w, "seen"), "the external patch saw the first inline patch's output")
	require.Equal(t, "external", get(t, w, "order"))
	require.Equal(t, "inline-2", get(t, w, "final"))
	require.Empty(t, w.GetLabels(), "only spec is kept from an external patch")
	labels, _, _ := unstructured.NestedStringMap(w.Object, "spec", "template", "metadata", "labels")
	require.Equal(t, map[string]string{"kept": "yes"}, labels)
	require.Equal(t, []string{"val.ext"}, f.validated)

	req := f.genReqs[0]
	require.Len(t, req.Items, 7, "infra cluster, control plane, its machine template, two per MachineDeployment")
	require.Equal(t, hooksv1.HolderReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineDeployment", Namespace: "ns",
		Name: names.MachineDeployments["md-0"].Name, FieldPath: "spec.template.spec.infrastructureRef"}, req.Items[4].HolderReference)
	require.Equal(t, "KubeadmControlPlane", req.Items[2].HolderReference.Kind)

	// Fresh UIDs per call: a second reconcile must not be able to reuse the first's.
	require.NoError(t, ApplyWith(context.Background(), f, c, cc, tpls, names, desired.Versions{}))
	require.NotEqual(t, f.genReqs[0].Items[0].UID, f.genReqs[1].Items[0].UID)
}

func TestApplyWith_ExternalPatchSeesOnlyTheVariablesItDefines(t *testing.T) {
	c, tpls, names := fixture()
	cc := classWith(clusterv1.ClusterClassPatch{Name: "ext", External: &clusterv1.ExternalPatchDefinition{GeneratePatchesExtension: "gen.ext"}})
	cc.Status.Variables = []clusterv1.ClusterClassStatusVariable{
		{Name: "image", Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{From: "ext"}}},
		{Name: "net", Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{From: clusterv1.VariableDefinitionFromInline}}},
	}
	f := &fakePatcher{gen: func(*hooksv1.GeneratePatchesRequest) *hooksv1.GeneratePatchesResponse {
		return &hooksv1.GeneratePatchesResponse{}
	}}
	require.NoError(t, ApplyWith(context.Background(), f, c, cc, tpls, names, desired.Versions{}))
	var global []string
	for _, v := range f.genReqs[0].Variables {
		global = append(global, v.Name)
	}
	require.Equal(t, []string{"builtin", "image"}, global)
	md0 := f.genReqs[0].Items[3] // md-0's bootstrap template: its image override
	require.Len(t, md0.Variables, 2)
	require.Equal(t, "image", md0.Variables[1].Name)
	require.JSONEq(t, `"node:gpu"`, string(md0.Variables[1].Value.Raw))
}

func TestApplyWith_UnknownUIDIsAnErrorNamingTheExtension(t *testing.T) {
	c, tpls, names := fixture()
	cc := classWith(clusterv1.ClusterClassPatch{Name: "ext", External: &clusterv1.ExternalPatchDefinition{GeneratePatchesExtension: "gen.ext"}})
	f := &fakePatcher{gen: func(*hooksv1.GeneratePatchesRequest) *hooksv1.GeneratePatchesResponse {
		return &hooksv1.GeneratePatchesResponse{Items: []hooksv1.GeneratePatchesResponseItem{{UID: "not-sent", PatchType: hooksv1.JSONMergePatchType, Patch: []byte(`{}`)}}}
	}}
	err := ApplyWith(context.Background(), f, c, cc, tpls, names, desired.Versions{})
	require.ErrorContains(t, err, `patch "ext" (spec.patches[0]): gen.ext answered GeneratePatches items[0] with uid "not-sent"`)
}

func TestApplyWith_BadPatchTypeAndValidateFailureAreErrors(t *testing.T) {
	c, tpls, names := fixture()
	cc := classWith(clusterv1.ClusterClassPatch{Name: "ext", External: &clusterv1.ExternalPatchDefinition{GeneratePatchesExtension: "gen.ext"}})
	f := &fakePatcher{gen: func(req *hooksv1.GeneratePatchesRequest) *hooksv1.GeneratePatchesResponse {
		return &hooksv1.GeneratePatchesResponse{Items: []hooksv1.GeneratePatchesResponseItem{{UID: req.Items[0].UID, PatchType: "Strategic", Patch: []byte(`{}`)}}}
	}}
	require.ErrorContains(t, ApplyWith(context.Background(), f, c, cc, tpls, names, desired.Versions{}), `patchType "Strategic" is neither`)

	cc = classWith(clusterv1.ClusterClassPatch{Name: "v", External: &clusterv1.ExternalPatchDefinition{ValidateTopologyExtension: "val.ext"}})
	f = &fakePatcher{validate: errors.New("val.ext answered Failure: too big")}
	err := ApplyWith(context.Background(), f, c, cc, tpls, names, desired.Versions{})
	require.ErrorContains(t, err, `patch "v" (spec.patches[0]): val.ext answered Failure: too big`)
	require.Empty(t, f.genReqs, "a patch with only validateTopologyExtension generates nothing")
}
