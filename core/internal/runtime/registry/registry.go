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

// Package registry holds, in memory, the handlers of every discovered ExtensionConfig, as the
// ExtensionConfig controller last registered them, for the callers of Runtime Extensions
// (capstan.dev/core/internal/runtime/client). The controller is its only writer; it reads no
// API object itself.
package registry

import (
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// Registration is one handler and what is needed to call it.
type Registration struct {
	// Name is the handler's full name, <handler>.<ExtensionConfig>.
	Name string
	// ExtensionConfig is the name of the ExtensionConfig the handler was discovered from, and
	// ResourceVersion that ExtensionConfig's resourceVersion when it was registered (callers key
	// what they cache of its answers by it).
	ExtensionConfig, ResourceVersion string
	// Hook is the hook the handler serves (e.g. BeforeClusterCreate); APIVersion its version.
	Hook, APIVersion string
	// TimeoutSeconds and FailurePolicy are as discovery reported them, defaulted.
	TimeoutSeconds int32
	FailurePolicy  runtimev1.FailurePolicy
	// ClientConfig, NamespaceSelector and Settings are the ExtensionConfig's.
	ClientConfig      runtimev1.ClientConfig
	NamespaceSelector *metav1.LabelSelector
	Settings          map[string]string
}

// WireName is the handler name the extension knows: the full name without the
// ".<ExtensionConfig>" suffix.
func (r Registration) WireName() string {
	return strings.TrimSuffix(r.Name, "."+r.ExtensionConfig)
}

// Registry is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	byExt  map[string][]Registration
	byName map[string]Registration
	// awaitingWarmUp is true until WarmUp: the registry does not yet hold what the
	// ExtensionConfigs in the API server say, so "no handler for this hook" cannot be trusted.
	awaitingWarmUp bool
}

// New returns an empty registry, complete as it is (whoever fills it by hand knows it is).
func New() *Registry {
	return &Registry{byExt: map[string][]Registration{}, byName: map[string]Registration{}}
}

// NewAwaitingWarmUp returns an empty registry that is not Ready until WarmUp: a manager's, which
// must not call (or skip) a hook before it has registered the extensions discovered before it
// started — a restarted core would otherwise find no BeforeClusterDelete handler and let a
// deletion an extension holds go on.
func NewAwaitingWarmUp() *Registry {
	r := New()
	r.awaitingWarmUp = true
	return r
}

// WarmUp registers the handlers every ExtensionConfig's status holds (its last discovery) and
// makes the registry Ready.
func (r *Registry) WarmUp(exts []runtimev1.ExtensionConfig) {
	for i := range exts {
		r.Register(&exts[i])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.awaitingWarmUp = false
}

// Ready says whether the registry holds every ExtensionConfig's handlers: until then a caller
// must wait rather than conclude that no extension serves a hook.
func (r *Registry) Ready() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return !r.awaitingWarmUp
}

// Register replaces every handler of ext by those in its status (each defaulted as upstream
// does: 10 s, Fail). An ExtensionConfig without handlers is removed.
func (r *Registry) Register(ext *runtimev1.ExtensionConfig) {
	regs := make([]Registration, 0, len(ext.Status.Handlers))
	for _, h := range ext.Status.Handlers {
		reg := Registration{Name: h.Name, ExtensionConfig: ext.Name, ResourceVersion: ext.ResourceVersion, Hook: h.RequestHook.Hook, APIVersion: h.RequestHook.APIVersion,
			TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail,
			ClientConfig: *ext.Spec.ClientConfig.DeepCopy(), NamespaceSelector: ext.Spec.NamespaceSelector.DeepCopy(), Settings: ext.Spec.Settings}
		if h.TimeoutSeconds != nil {
			reg.TimeoutSeconds = *h.TimeoutSeconds
		}
		if h.FailurePolicy != "" {
			reg.FailurePolicy = h.FailurePolicy
		}
		regs = append(regs, reg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.remove(ext.Name)
	if len(regs) == 0 {
		return
	}
	r.byExt[ext.Name] = regs
	for _, reg := range regs {
		r.byName[reg.Name] = reg
	}
}

// Unregister removes every handler of the ExtensionConfig named name.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.remove(name)
}

func (r *Registry) remove(name string) {
	for _, reg := range r.byExt[name] {
		delete(r.byName, reg.Name)
	}
	delete(r.byExt, name)
}

// Get returns the handler with the full name name.
func (r *Registry) Get(name string) (Registration, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	reg, ok := r.byName[name]
	return reg, ok
}

// ForHook returns the handlers of hook, sorted by name (so callers call them in a stable order,
// unlike upstream's map order).
func (r *Registry) ForHook(hook string) []Registration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Registration
	for _, reg := range r.byName {
		if reg.Hook == hook {
			out = append(out, reg)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
