package clusterclass

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/core/internal/topology/variables"
)

// discoveryTTL is how long a DiscoverVariables answer is reused (upstream's 10 minutes); a
// change of the ExtensionConfig (its resourceVersion is in the key) asks again at once.
const discoveryTTL = 10 * time.Minute

// discoveryRetry is how soon a failed DiscoverVariables call is made again.
const discoveryRetry = 10 * time.Second

// discovered is what one external patch's DiscoverVariables handler defines.
type discovered struct {
	from string // the patch's name
	vars []clusterv1.ClusterClassVariable
}

// discoveryCache holds DiscoverVariables answers by handler, ExtensionConfig resourceVersion and
// settings. It is safe for concurrent use.
type discoveryCache struct {
	mu      sync.Mutex
	entries map[string]discoveryEntry
}

type discoveryEntry struct {
	vars []clusterv1.ClusterClassVariable
	at   time.Time
}

func (c *discoveryCache) get(key string) ([]clusterv1.ClusterClassVariable, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || time.Since(e.at) > discoveryTTL {
		return nil, false
	}
	return e.vars, true
}

func (c *discoveryCache) put(key string, vars []clusterv1.ClusterClassVariable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]discoveryEntry{}
	}
	for k, e := range c.entries { // keep it from growing with every ExtensionConfig change
		if time.Since(e.at) > discoveryTTL {
			delete(c.entries, k)
		}
	}
	c.entries[key] = discoveryEntry{vars: vars, at: time.Now()}
}

// discoverVariables asks each external patch's DiscoverVariables handler, in class order, for
// its variables and checks them as inline ones are checked. A failed call or an invalid answer
// is a variable problem naming the patch; retry says a call failed and must be made again.
func (r *Reconciler) discoverVariables(ctx context.Context, s *scope) (out []discovered, retry bool) {
	cc := s.class
	for i, p := range cc.Spec.Patches {
		if p.External == nil || p.External.DiscoverVariablesExtension == "" {
			continue
		}
		handler := p.External.DiscoverVariablesExtension
		what := fmt.Sprintf("patch %q (spec.patches[%d].external.discoverVariablesExtension %s)", p.Name, i, handler)
		if r.Runtime == nil {
			s.variableProblems = append(s.variableProblems, what+": this manager has no Runtime SDK client: run the core with the Runtime SDK")
			continue
		}
		vars, err := r.discoverPatch(ctx, cc, p.External)
		if err != nil {
			s.variableProblems = append(s.variableProblems, fmt.Sprintf("%s: %v: fix the Runtime Extension or its ExtensionConfig; the ClusterClass controller retries", what, err))
			retry = true
			continue
		}
		if problems := checkDiscovered(vars); len(problems) > 0 {
			s.variableProblems = append(s.variableProblems, fmt.Sprintf("%s answered invalid variables: %s: fix the Runtime Extension", what, strings.Join(problems, "; ")))
			continue
		}
		out = append(out, discovered{from: p.Name, vars: vars})
	}
	return out, retry
}

// discoverPatch calls one handler, or reuses its answer.
func (r *Reconciler) discoverPatch(ctx context.Context, cc *clusterv1.ClusterClass, ext *clusterv1.ExternalPatchDefinition) ([]clusterv1.ClusterClassVariable, error) {
	handler := ext.DiscoverVariablesExtension
	reg, registered := r.Runtime.Registry.Get(handler)
	key := handler + "\x00" + reg.ResourceVersion
	for _, k := range slices.Sorted(maps.Keys(ext.Settings)) {
		key += "\x00" + k + "=" + ext.Settings[k]
	}
	if vars, ok := r.discoveries.get(key); ok && registered {
		return vars, nil
	}
	req := &hooksv1.DiscoverVariablesRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.DiscoverVariables, "Request")}
	req.Settings = ext.Settings
	ctrl.LoggerFrom(ctx).V(4).Info("Calling DiscoverVariables", "handler", handler)
	resp, err := r.Runtime.DiscoverVariables(ctx, handler, cc.Namespace, req)
	if err != nil {
		return nil, err
	}
	r.discoveries.put(key, resp.Variables)
	return resp.Variables, nil
}

// checkDiscovered checks an extension's variables as admission checks spec.variables.
func checkDiscovered(vars []clusterv1.ClusterClassVariable) []string {
	var problems []string
	seen := map[string]bool{}
	for j, v := range vars {
		path := field.NewPath("variables").Index(j)
		switch {
		case v.Name == "":
			problems = append(problems, path.Child("name").String()+": must be set")
		case v.Name == "builtin" || strings.Contains(v.Name, "."):
			problems = append(problems, fmt.Sprintf("%s: %q is reserved or contains a dot", path.Child("name"), v.Name))
		case seen[v.Name]:
			problems = append(problems, fmt.Sprintf("%s: %q is defined twice", path.Child("name"), v.Name))
		case v.Required == nil:
			problems = append(problems, fmt.Sprintf("%s: variable %q must say whether it is required", path.Child("required"), v.Name))
		}
		seen[v.Name] = true
		schemaPath := path.Child("schema", "openAPIV3Schema")
		errs := checkTypes(schemaPath, &v.Schema.OpenAPIV3Schema)
		if len(errs) == 0 {
			_, errs = variables.CompileSchema(schemaPath, v.Schema.OpenAPIV3Schema)
		}
		if len(errs) > 0 {
			problems = append(problems, fmt.Sprintf("variable %q: %v", v.Name, errs.ToAggregate()))
		}
	}
	return problems
}

// schemaTypes are the types the CRD admits in spec.variables (its enum); an extension's answer
// passes no admission, so they are checked here.
var schemaTypes = map[string]bool{"": true, "object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true}

// checkTypes walks a schema and its subschemas for types the CRD would refuse.
func checkTypes(path *field.Path, s *clusterv1.JSONSchemaProps) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if !schemaTypes[s.Type] {
		errs = append(errs, field.NotSupported(path.Child("type"), s.Type, []string{"object", "array", "string", "integer", "number", "boolean"}))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[k]
		errs = append(errs, checkTypes(path.Child("properties").Key(k), &p)...)
	}
	errs = append(errs, checkTypes(path.Child("items"), s.Items)...)
	errs = append(errs, checkTypes(path.Child("additionalProperties"), s.AdditionalProperties)...)
	errs = append(errs, checkTypes(path.Child("not"), s.Not)...)
	for i := range s.AllOf {
		errs = append(errs, checkTypes(path.Child("allOf").Index(i), &s.AllOf[i])...)
	}
	for i := range s.OneOf {
		errs = append(errs, checkTypes(path.Child("oneOf").Index(i), &s.OneOf[i])...)
	}
	for i := range s.AnyOf {
		errs = append(errs, checkTypes(path.Child("anyOf").Index(i), &s.AnyOf[i])...)
	}
	return errs
}

// mergeVariables is status.variables: per name (sorted), the inline definition first, then the
// external patches' in class order. Definitions of one name that differ set definitionsConflict,
// and each such name is a conflict message naming where its definitions come from.
func mergeVariables(inline []clusterv1.ClusterClassVariable, external []discovered) ([]clusterv1.ClusterClassStatusVariable, []string) {
	byName := map[string]*clusterv1.ClusterClassStatusVariable{}
	for _, sv := range variables.StatusVariables(inline) {
		byName[sv.Name] = &sv
	}
	for _, d := range external {
		for _, v := range d.vars {
			sv := byName[v.Name]
			if sv == nil {
				sv = &clusterv1.ClusterClassStatusVariable{Name: v.Name, DefinitionsConflict: ptr.To(false)}
				byName[v.Name] = sv
			}
			sv.Definitions = append(sv.Definitions, clusterv1.ClusterClassStatusVariableDefinition{From: d.from, Required: v.Required,
				DeprecatedV1Beta1Metadata: *v.DeprecatedV1Beta1Metadata.DeepCopy(), Schema: *v.Schema.DeepCopy()})
		}
	}
	var out []clusterv1.ClusterClassStatusVariable
	var conflicts []string
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		sv := byName[name]
		var froms []string
		for _, d := range sv.Definitions {
			froms = append(froms, d.From)
			first := sv.Definitions[0]
			if ptr.Deref(d.Required, false) != ptr.Deref(first.Required, false) || !apiequality.Semantic.DeepEqual(d.Schema, first.Schema) ||
				!apiequality.Semantic.DeepEqual(d.DeprecatedV1Beta1Metadata, first.DeprecatedV1Beta1Metadata) {
				sv.DefinitionsConflict = ptr.To(true)
			}
		}
		if ptr.Deref(sv.DefinitionsConflict, false) {
			conflicts = append(conflicts, fmt.Sprintf("variable %q has conflicting definitions (from %s): make them equal, or rename one",
				name, strings.Join(froms, ", ")))
		}
		out = append(out, *sv)
	}
	return out, conflicts
}

// extensionConfigToClusterClasses requests every ClusterClass with a DiscoverVariables handler
// of the ExtensionConfig: its answer may have changed.
func (r *Reconciler) extensionConfigToClusterClasses(ctx context.Context, o client.Object) []reconcile.Request {
	classes := &clusterv1.ClusterClassList{}
	if err := r.Client.List(ctx, classes); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing ClusterClasses to map an ExtensionConfig event")
		return nil
	}
	var out []reconcile.Request
	for i := range classes.Items {
		for _, p := range classes.Items[i].Spec.Patches {
			if p.External != nil && strings.HasSuffix(p.External.DiscoverVariablesExtension, "."+o.GetName()) {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&classes.Items[i])})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
