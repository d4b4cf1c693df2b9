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

package kcprollout

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// RoleConfig is the KubeadmConfig spec of a new Machine, from spec.kubeadmConfigSpec (a JSON
// tree, not changed): only the part its role needs, as upstream does. The first Machine (init)
// keeps initConfiguration and loses joinConfiguration; the others lose initConfiguration and
// join as control plane nodes (joinConfiguration.controlPlane set). clusterConfiguration stays in
// both: the bootstrap provider reads it for joins too (certificatesDir, external etcd).
func RoleConfig(kubeadmConfigSpec map[string]any, init bool) map[string]any {
	spec := runtime.DeepCopyJSON(kubeadmConfigSpec)
	if spec == nil {
		spec = map[string]any{}
	}
	if init {
		delete(spec, "joinConfiguration")
		return spec
	}
	delete(spec, "initConfiguration")
	join, _ := spec["joinConfiguration"].(map[string]any)
	if join == nil {
		join = map[string]any{}
		spec["joinConfiguration"] = join
	}
	if _, ok := join["controlPlane"].(map[string]any); !ok {
		join["controlPlane"] = map[string]any{}
	}
	return spec
}

// IsInitConfig tells, from a KubeadmConfig's spec, the Machine that ran kubeadm init: the
// controller gives every joining control plane Machine a joinConfiguration.controlPlane.
func IsInitConfig(configSpec map[string]any) bool {
	join, _ := configSpec["joinConfiguration"].(map[string]any)
	_, ok := join["controlPlane"]
	return !ok
}

// ConfigDiff lists the JSON paths (below the spec) where a Machine's KubeadmConfig spec (have)
// differs from the one the KubeadmControlPlane would create for it now (want, RoleConfig),
// sorted, after taking away what is not part of the Machine's configuration: the join
// discovery, which the bootstrap controller fills in (token, CA hashes) and which only matters
// while joining, as upstream ignores it; and what differs only by defaulting (an empty object is
// unset; format unset is cloud-config). Since RoleConfig drops initConfiguration from a join and
// joinConfiguration from an init, each Machine is compared on the part kubeadm applied to it.
func ConfigDiff(want, have map[string]any) []string {
	return DiffPaths(normalizedConfig(want), normalizedConfig(have))
}

// ConfigDiffMessage is the outdated reason of KubeadmConfig name differing in paths (ConfigDiff):
// the first few, prefixed with spec.kubeadmConfigSpec, and a count of the rest. Empty when paths
// is.
func ConfigDiffMessage(name string, paths []string) string {
	const maxShown = 3
	if len(paths) == 0 {
		return ""
	}
	shown := make([]string, 0, maxShown)
	for _, p := range paths[:min(len(paths), maxShown)] {
		shown = append(shown, "spec.kubeadmConfigSpec."+p)
	}
	more := ""
	if len(paths) > maxShown {
		more = fmt.Sprintf(" and %d more", len(paths)-maxShown)
	}
	return fmt.Sprintf("KubeadmConfig %s differs in %s%s", name, strings.Join(shown, ", "), more)
}

// normalizedConfig is a copy of spec without the fields ConfigDiff ignores.
func normalizedConfig(spec map[string]any) any {
	spec = runtime.DeepCopyJSON(spec)
	if spec == nil {
		spec = map[string]any{}
	}
	if join, ok := spec["joinConfiguration"].(map[string]any); ok {
		delete(join, "discovery")
	}
	if f, _ := spec["format"].(string); f == "" {
		spec["format"] = "cloud-config"
	}
	return pruneEmpty(spec)
}

// pruneEmpty drops empty objects from a JSON tree, so that an unset struct and an empty one
// compare equal; it returns nil for an empty object. Empty strings and lists are kept: the API
// types omit them when unset, so an empty one was written on purpose and can mean something
// (nodeRegistration.taints: [] is "no taints", unset is kubeadm's default taint).
func pruneEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if p := pruneEmpty(e); p == nil {
				delete(t, k)
			} else {
				t[k] = p
			}
		}
		if len(t) == 0 {
			return nil
		}
	case []any:
		for i := range t {
			t[i] = pruneEmpty(t[i])
		}
	}
	return v
}

// DiffPaths lists, sorted, the paths under which two JSON trees differ: objects are compared key
// by key (an absent object as an empty one, so the path names the field set inside it), anything
// else (lists included: their order matters to kubeadm) as a whole.
func DiffPaths(want, have any) []string {
	var out []string
	diffJSON("", want, have, &out)
	slices.Sort(out)
	return out
}

func diffJSON(path string, want, have any, out *[]string) {
	wm, ok1 := want.(map[string]any)
	hm, ok2 := have.(map[string]any)
	if ok1 && have == nil {
		hm, ok2 = map[string]any{}, true
	}
	if ok2 && want == nil {
		wm, ok1 = map[string]any{}, true
	}
	if !ok1 || !ok2 {
		if !reflect.DeepEqual(want, have) {
			*out = append(*out, path)
		}
		return
	}
	keys := maps.Clone(wm)
	maps.Copy(keys, hm)
	for k := range keys {
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		diffJSON(sub, wm[k], hm[k], out)
	}
}
