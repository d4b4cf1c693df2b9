/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// ImageRepositoryVariable is the variable the topology mutation handlers use; DiscoverVariables
// defines it.
const ImageRepositoryVariable = "imageRepository"

// MutationHooks are the topology mutation hooks and the upgrade-plan hook the extension serves
// beside the lifecycle ones.
func MutationHooks() []string {
	return []string{hooksv1.GeneratePatches, hooksv1.ValidateTopology, hooksv1.DiscoverVariables, hooksv1.GenerateUpgradePlan}
}

// Variables is what discover-variables answers: the schema of imageRepository.
func Variables() []clusterv1.ClusterClassVariable {
	return []clusterv1.ClusterClassVariable{{Name: ImageRepositoryVariable, Required: new(bool),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string",
			Default:     &apiextensionsv1.JSON{Raw: []byte(`"registry.k8s.io"`)},
			Description: "the image registry the test extension writes into the templates"}}}}
}

// mutate answers a topology mutation hook; a = what the control endpoint set for it.
func (e *Extension) mutate(w http.ResponseWriter, hook string, body []byte, a Answer, set bool) {
	fail := func(msg string) {
		writeJSON(w, map[string]any{"apiVersion": hooksv1.APIVersion, "kind": hook + "Response", "status": hooksv1.ResponseStatusFailure, "message": msg})
	}
	if set && a.Status == hooksv1.ResponseStatusFailure {
		fail(a.Message)
		return
	}
	switch hook {
	case hooksv1.DiscoverVariables:
		writeJSON(w, hooksv1.DiscoverVariablesResponse{TypeMeta: hooksv1.TypeMeta(hook, "Response"),
			CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}, Variables: Variables()})
	case hooksv1.ValidateTopology:
		writeJSON(w, hooksv1.ValidateTopologyResponse{TypeMeta: hooksv1.TypeMeta(hook, "Response"),
			CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}})
	case hooksv1.GenerateUpgradePlan:
		req := &hooksv1.GenerateUpgradePlanRequest{}
		if err := json.Unmarshal(body, req); err != nil {
			fail("the request is not a GenerateUpgradePlanRequest: " + err.Error())
			return
		}
		steps, err := upgradePlan(req.FromControlPlaneKubernetesVersion, req.ToKubernetesVersion)
		if err != nil {
			fail(err.Error())
			return
		}
		writeJSON(w, hooksv1.GenerateUpgradePlanResponse{TypeMeta: hooksv1.TypeMeta(hook, "Response"),
			CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}, ControlPlaneUpgrades: steps,
			WorkersUpgrades: workersSteps(a.WorkersUpgrades, req.FromWorkersKubernetesVersion)})
	case hooksv1.GeneratePatches:
		req := &hooksv1.GeneratePatchesRequest{}
		if err := json.Unmarshal(body, req); err != nil {
			fail("the request is not a GeneratePatchesRequest: " + err.Error())
			return
		}
		resp, err := generatePatches(req)
		if err != nil {
			fail(err.Error())
			return
		}
		if a.UnknownUID && len(resp.Items) > 0 {
			resp.Items[0].UID = "not-a-request-uid"
		}
		writeJSON(w, resp)
	}
}

// generatePatches patches, with imageRepository (the item's value winning over the Cluster's,
// and the request's setting of that name used when neither is sent: a patch whose class does
// not define the variable can still be given a value):
//   - a KubeadmControlPlaneTemplate's kubeadmConfigSpec.clusterConfiguration.imageRepository;
//   - a KubeadmConfigTemplate's preKubeadmCommands, appending "echo imageRepository=<value>";
//   - any template whose spec.template.spec.image is a string: it is prefixed with "<value>/",
//     which shows what an earlier patch wrote there (the template as the request holds it).
func generatePatches(req *hooksv1.GeneratePatchesRequest) (*hooksv1.GeneratePatchesResponse, error) {
	resp := &hooksv1.GeneratePatchesResponse{TypeMeta: hooksv1.TypeMeta(hooksv1.GeneratePatches, "Response"),
		CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}
	for i, it := range req.Items {
		repo, ok, err := stringVariable(ImageRepositoryVariable, it.Variables, req.Variables)
		if err != nil {
			return nil, fmt.Errorf("items[%d]: %w", i, err)
		}
		if !ok {
			repo, ok = req.Settings[ImageRepositoryVariable]
		}
		if !ok {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(it.Object.Raw); err != nil {
			return nil, fmt.Errorf("items[%d].object: %w", i, err)
		}
		var ops []map[string]any
		switch obj.GetKind() {
		case "KubeadmControlPlaneTemplate":
			ops = append(ops, addOp(obj, []string{"spec", "template", "spec", "kubeadmConfigSpec", "clusterConfiguration", "imageRepository"}, repo))
		case "KubeadmConfigTemplate":
			cmds, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "template", "spec", "preKubeadmCommands")
			ops = append(ops, addOp(obj, []string{"spec", "template", "spec", "preKubeadmCommands"}, append(cmds, "echo imageRepository="+repo)))
		}
		if image, ok, _ := unstructured.NestedString(obj.Object, "spec", "template", "spec", "image"); ok {
			ops = append(ops, map[string]any{"op": "replace", "path": "/spec/template/spec/image", "value": repo + "/" + image})
		}
		if len(ops) == 0 {
			continue
		}
		patch, err := json.Marshal(ops)
		if err != nil {
			return nil, err
		}
		resp.Items = append(resp.Items, hooksv1.GeneratePatchesResponseItem{UID: it.UID, PatchType: hooksv1.JSONPatchType, Patch: patch})
	}
	return resp, nil
}

// addOp is a JSON patch "add" of value at path, creating the objects on the way (a JSON patch
// cannot add below a missing key) by adding the first missing one whole.
func addOp(obj *unstructured.Unstructured, path []string, value any) map[string]any {
	for i := 1; i < len(path); i++ {
		if _, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, path[:i]...); !ok {
			for j := len(path) - 1; j >= i; j-- {
				value = map[string]any{path[j]: value}
			}
			return map[string]any{"op": "add", "path": "/" + strings.Join(path[:i], "/"), "value": value}
		}
	}
	return map[string]any{"op": "add", "path": "/" + strings.Join(path, "/"), "value": value}
}

// stringVariable is the string value of name, from the item's variables first.
func stringVariable(name string, lists ...[]hooksv1.Variable) (string, bool, error) {
	for _, list := range lists {
		for _, v := range list {
			if v.Name != name {
				continue
			}
			var s string
			if err := json.Unmarshal(v.Value.Raw, &s); err != nil {
				return "", false, fmt.Errorf("variable %s is not a string: %w", name, err)
			}
			return s, true, nil
		}
	}
	return "", false, nil
}

// upgradePlan is the control plane's plan from from to to: the .0 patch of every minor version
// between, then to.
func upgradePlan(from, to string) ([]hooksv1.UpgradeStep, error) {
	f, err := version.ParseSemantic(from)
	if err != nil {
		return nil, fmt.Errorf("fromControlPlaneKubernetesVersion: %w", err)
	}
	t, err := version.ParseSemantic(to)
	if err != nil {
		return nil, fmt.Errorf("toKubernetesVersion: %w", err)
	}
	var steps []hooksv1.UpgradeStep
	for minor := f.Minor() + 1; minor < t.Minor(); minor++ {
		steps = append(steps, hooksv1.UpgradeStep{Version: fmt.Sprintf("v%d.%d.0", t.Major(), minor)})
	}
	return append(steps, hooksv1.UpgradeStep{Version: to}), nil
}

// workersSteps are the versions of plan newer than from (all of them when from is not a
// version): what is left of the workers' plan a test set.
func workersSteps(plan []string, from string) []hooksv1.UpgradeStep {
	f, ferr := version.ParseSemantic(from)
	var steps []hooksv1.UpgradeStep
	for _, s := range plan {
		if v, err := version.ParseSemantic(s); ferr != nil || (err == nil && f.LessThan(v)) {
			steps = append(steps, hooksv1.UpgradeStep{Version: s})
		}
	}
	return steps
}
