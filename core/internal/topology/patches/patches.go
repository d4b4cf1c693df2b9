package patches

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/core/internal/topology/desired"
)

// role says which of the class's templates an item is, for matchResources.
type role int

const (
	infrastructureCluster role = iota
	controlPlane               // the control-plane template and its machine infrastructure template
	machineDeployment          // a MachineDeployment's bootstrap and infrastructure templates
	machinePool                // a MachinePool's bootstrap and infrastructure templates
)

// item is one template copy patches apply to, with the variables it sees.
type item struct {
	role  role
	class string // the worker class, for machineDeployment and machinePool items
	obj   *unstructured.Unstructured
	vars  map[string]any // what inline patches see: the variables defined inline, and builtin
	what  string         // e.g. "the control plane's DevMachineTemplate cp-machines"

	// For external patches, which filter the variables per patch themselves.
	overrides []clusterv1.ClusterVariable
	builtin   map[string]any
	holder    hooksv1.HolderReference
}

// Apply runs the class's inline patches; a class with an external patch is an error (use
// ApplyWith and an ExternalPatcher).
func Apply(c *clusterv1.Cluster, cc *clusterv1.ClusterClass, tpls *desired.Templates, names *desired.Names, versions desired.Versions) error {
	return ApplyWith(context.Background(), nil, c, cc, tpls, names, versions)
}

// ApplyWith runs the class's patches, inline and external interleaved, in class order, each over
// the previous one's output, over the template copies of c's desired state; then the external
// patches' ValidateTopology handlers, in class order. c's topology variables must already be
// defaulted. The error names the patch, the JSON patch or extension, and the template it failed
// on. versions give builtin.controlPlane.version, builtin.machineDeployment.version and
// builtin.machinePool.version (upstream: the versions the objects get, which trail
// builtin.cluster.topology.version during an upgrade). ext calls the extensions; nil refuses
// external patches.
func ApplyWith(ctx context.Context, ext ExternalPatcher, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, tpls *desired.Templates,
	names *desired.Names, versions desired.Versions) error {
	if len(cc.Spec.Patches) == 0 {
		return nil
	}
	items, err := collectItems(c, cc, tpls, names, versions)
	if err != nil {
		return err
	}
	for i := range cc.Spec.Patches {
		p := &cc.Spec.Patches[i]
		if p.External != nil {
			if ext == nil {
				return fmt.Errorf("ClusterClass %s patch %q (spec.patches[%d]) is external, and nothing here can call Runtime Extensions", cc.Name, p.Name, i)
			}
			if p.External.GeneratePatchesExtension == "" {
				continue
			}
			if err := generateExternal(ctx, ext, c, cc, p, items); err != nil {
				return fmt.Errorf("ClusterClass %s patch %q (spec.patches[%d]): %w", cc.Name, p.Name, i, err)
			}
			continue
		}
		for _, it := range items {
			if err := applyPatch(p, it); err != nil {
				return fmt.Errorf("ClusterClass %s patch %q (spec.patches[%d]) on %s: %w", cc.Name, p.Name, i, it.what, err)
			}
		}
	}
	if ext == nil {
		return nil
	}
	return validateExternal(ctx, ext, c, cc, items)
}

// collector builds the items: each template copy with the variables inline patches see and
// what external patches are sent.
type collector struct {
	c     *clusterv1.Cluster
	cc    *clusterv1.ClusterClass
	items []*item
}

// inline keeps the variables defined inline.
func (k *collector) inline(vs []clusterv1.ClusterVariable) []clusterv1.ClusterVariable {
	var out []clusterv1.ClusterVariable
	for _, v := range vs {
		if definedFrom(k.cc, v.Name, clusterv1.VariableDefinitionFromInline) {
			out = append(out, v)
		}
	}
	return out
}

func (k *collector) add(r role, class string, obj *unstructured.Unstructured, overrides []clusterv1.ClusterVariable, builtin map[string]any,
	holder hooksv1.HolderReference, what string) error {
	vars, err := variableMap(k.inline(k.c.Spec.Topology.Variables), k.inline(overrides), builtin)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	k.items = append(k.items, &item{role: r, class: class, obj: obj, vars: vars, what: fmt.Sprintf("%s %s %s", what, obj.GetKind(), obj.GetName()),
		overrides: overrides, builtin: builtin, holder: holder})
	return nil
}

// addWorker adds a MachineDeployment's or MachinePool's bootstrap and infrastructure templates.
func (k *collector) addWorker(r role, class string, tpl desired.WorkerTemplates, overrides []clusterv1.ClusterVariable, builtin map[string]any,
	kind, name, what string) error {
	holder := hooksv1.HolderReference{APIVersion: clusterv1.GroupVersion.String(), Kind: kind, Namespace: k.c.Namespace, Name: name}
	holder.FieldPath = "spec.template.spec.bootstrap.configRef"
	if err := k.add(r, class, tpl.Bootstrap, overrides, builtin, holder, what); err != nil {
		return err
	}
	holder.FieldPath = "spec.template.spec.infrastructureRef"
	return k.add(r, class, tpl.Infrastructure, overrides, builtin, holder, what)
}

// collectItems lists the template copies with each one's variables and holder, in class order.
func collectItems(c *clusterv1.Cluster, cc *clusterv1.ClusterClass, tpls *desired.Templates, names *desired.Names, versions desired.Versions) ([]*item, error) {
	t := &c.Spec.Topology
	k := &collector{c: c, cc: cc}
	ofCluster := func(fieldPath string) hooksv1.HolderReference {
		return hooksv1.HolderReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Namespace: c.Namespace, Name: c.Name, FieldPath: fieldPath}
	}
	// The generated objects' metadata, from the templates before any patch ran (as upstream's).
	meta, err := desired.GeneratedMetadata(c, cc, tpls)
	if err != nil {
		return nil, err
	}
	if err := k.add(infrastructureCluster, "", tpls.InfrastructureCluster, nil, withBuiltin(c, nil), ofCluster("spec.infrastructureRef"),
		"the InfrastructureCluster's template"); err != nil {
		return nil, err
	}
	cpBuiltin := withBuiltin(c, map[string]any{"controlPlane": controlPlaneBuiltin(c, names, meta.ControlPlane, versions.ForControlPlane(c))})
	if err := k.add(controlPlane, "", tpls.ControlPlane, t.ControlPlane.Variables.Overrides, cpBuiltin, ofCluster("spec.controlPlaneRef"),
		"the control plane's template"); err != nil {
		return nil, err
	}
	if tpls.ControlPlaneMachineInfrastructure != nil {
		holder := hooksv1.HolderReference{APIVersion: tpls.ControlPlane.GetAPIVersion(), Kind: strings.TrimSuffix(tpls.ControlPlane.GetKind(), "Template"),
			Namespace: c.Namespace, Name: names.ControlPlane, FieldPath: "spec.machineTemplate.spec.infrastructureRef"}
		if err := k.add(controlPlane, "", tpls.ControlPlaneMachineInfrastructure, t.ControlPlane.Variables.Overrides, cpBuiltin, holder,
			"the control plane's machine template"); err != nil {
			return nil, err
		}
	}
	for i := range t.Workers.MachineDeployments {
		mdt := &t.Workers.MachineDeployments[i]
		b := withBuiltin(c, map[string]any{"machineDeployment": workerBuiltin(mdt.Class, mdt.Name, mdt.Replicas,
			names.MachineDeployments[mdt.Name], meta.MachineDeployments[mdt.Name], versions.ForMachineDeployment(c, mdt.Name))})
		if err := k.addWorker(machineDeployment, mdt.Class, tpls.MachineDeployments[mdt.Name], mdt.Variables.Overrides, b,
			"MachineDeployment", names.MachineDeployments[mdt.Name].Name, "MachineDeployment "+mdt.Name+"'s template"); err != nil {
			return nil, err
		}
	}
	for i := range t.Workers.MachinePools {
		mpt := &t.Workers.MachinePools[i]
		b := withBuiltin(c, map[string]any{"machinePool": workerBuiltin(mpt.Class, mpt.Name, mpt.Replicas,
			names.MachinePools[mpt.Name], meta.MachinePools[mpt.Name], versions.ForMachinePool(c, mpt.Name))})
		if err := k.addWorker(machinePool, mpt.Class, tpls.MachinePools[mpt.Name], mpt.Variables.Overrides, b,
			"MachinePool", names.MachinePools[mpt.Name].Name, "MachinePool "+mpt.Name+"'s template"); err != nil {
			return nil, err
		}
	}
	return k.items, nil
}

// applyPatch applies one patch's matching definitions to one item, if enabledIf allows.
func applyPatch(p *clusterv1.ClusterClassPatch, it *item) error {
	enabled, err := isEnabled(p.EnabledIf, it.vars)
	if err != nil || !enabled {
		return err
	}
	for j, d := range p.Definitions {
		if !matches(d.Selector, it) {
			continue
		}
		for k, jp := range d.JSONPatches {
			if err := applyJSONPatch(it, jp); err != nil {
				return fmt.Errorf("definitions[%d].jsonPatches[%d] (%s %s): %w", j, k, jp.Op, jp.Path, err)
			}
		}
	}
	return nil
}

// isEnabled renders enabledIf; the patch applies when it is empty or renders exactly "true".
func isEnabled(enabledIf string, vars map[string]any) (bool, error) {
	if enabledIf == "" {
		return true, nil
	}
	out, err := render(enabledIf, vars, false)
	if err != nil {
		return false, fmt.Errorf("enabledIf: %w", err)
	}
	return strings.TrimSpace(out) == "true", nil
}

// matches reports whether a definition's selector picks the item.
func matches(sel clusterv1.PatchSelector, it *item) bool {
	if sel.APIVersion != it.obj.GetAPIVersion() || sel.Kind != it.obj.GetKind() {
		return false
	}
	m := sel.MatchResources
	switch it.role {
	case infrastructureCluster:
		return ptr.Deref(m.InfrastructureCluster, false)
	case controlPlane:
		return ptr.Deref(m.ControlPlane, false)
	case machinePool:
		return m.MachinePoolClass != nil && matchesName(m.MachinePoolClass.Names, it.class)
	default:
		return m.MachineDeploymentClass != nil && matchesName(m.MachineDeploymentClass.Names, it.class)
	}
}

// matchesName matches a class name against names that may be "*", "prefix*" or "*suffix".
func matchesName(names []string, class string) bool {
	for _, n := range names {
		switch {
		case n == "*" || n == class:
			return true
		case strings.HasSuffix(n, "*") && strings.HasPrefix(class, strings.TrimSuffix(n, "*")):
			return true
		case strings.HasPrefix(n, "*") && strings.HasSuffix(class, strings.TrimPrefix(n, "*")):
			return true
		}
	}
	return false
}

// applyJSONPatch applies one RFC 6902 operation to the item.
func applyJSONPatch(it *item, jp clusterv1.JSONPatch) error {
	if jp.Path != "/spec" && !strings.HasPrefix(jp.Path, "/spec/") {
		return fmt.Errorf("path must start with /spec")
	}
	op := map[string]any{"op": jp.Op, "path": jp.Path}
	if jp.Op != "remove" {
		v, err := patchValue(jp, it.vars)
		if err != nil {
			return err
		}
		op["value"] = v
	}
	patchJSON, err := json.Marshal([]any{op})
	if err != nil {
		return err
	}
	decoded, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return err
	}
	doc, err := json.Marshal(it.obj.Object)
	if err != nil {
		return err
	}
	if doc, err = decoded.Apply(doc); err != nil {
		return err
	}
	out := map[string]any{}
	if err := utiljson.Unmarshal(doc, &out); err != nil {
		return err
	}
	it.obj.Object = out
	return nil
}

// patchValue is the value an add or replace writes.
func patchValue(jp clusterv1.JSONPatch, vars map[string]any) (any, error) {
	switch {
	case jp.Value != nil:
		var v any
		if err := utiljson.Unmarshal(jp.Value.Raw, &v); err != nil {
			return nil, fmt.Errorf("value is not JSON: %w", err)
		}
		return v, nil
	case jp.ValueFrom != nil && jp.ValueFrom.Variable != "":
		return lookup(vars, jp.ValueFrom.Variable)
	case jp.ValueFrom != nil && jp.ValueFrom.Template != "":
		out, err := render(jp.ValueFrom.Template, vars, true)
		if err != nil {
			return nil, fmt.Errorf("valueFrom.template: %w", err)
		}
		if strings.Contains(out, noValue) {
			return nil, fmt.Errorf("valueFrom.template renders %q: a value it reads is null; set it, or guard the read", out)
		}
		raw, err := yaml.YAMLToJSON([]byte(out))
		if err != nil {
			return nil, fmt.Errorf("valueFrom.template renders %q, which is not YAML or JSON: %w", out, err)
		}
		var v any
		if err := utiljson.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("valueFrom.template renders %q: %w", out, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("%s needs value or valueFrom (variable or template)", jp.Op)
}

// noValue is what Go templates print for a value that is not there.
const noValue = "<no value>"

// missingKey is text/template's error for a map key that is not there (missingkey=error): the
// read (".foo.bar") and the key ("bar").
var missingKey = regexp.MustCompile(`at <([^>]*)>: map has no entry for key "([^"]*)"`)

// render executes a Go template with the hermetic Sprig functions (no time, random or
// environment) over the variables. When strict (valueFrom.template, whose output goes into a
// spec), reading a key that is not set is an error naming it, where upstream writes "<no value>";
// otherwise it reads as empty, so that enabledIf: '{{ if .optional }}true{{ end }}' is simply
// false for a variable that is not set, as upstream.
func render(text string, vars map[string]any, strict bool) (string, error) {
	t := template.New("patch").Funcs(sprig.HermeticTxtFuncMap())
	if strict {
		t = t.Option("missingkey=error")
	}
	t, err := t.Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, vars); err != nil {
		if m := missingKey.FindStringSubmatch(err.Error()); m != nil {
			return "", fmt.Errorf("reads %s, but key %q is not set: set the variable (or give its schema a default), "+
				"or guard the read (hasKey, or index . %q | default ...)", m[1], m[2], m[2])
		}
		return "", err
	}
	return b.String(), nil
}
