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

package client

import (
	"context"
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// Discover calls ext's discovery and returns its handlers as status.handlers holds them: named
// <handler>.<ext>, defaulted (10 s, Fail) and sorted by name. An answer that is not Success,
// or that names a handler badly, a hook this version does not know, a timeout outside 0-30 s
// or an unknown failurePolicy fails the whole discovery, as upstream's does.
func (c *Client) Discover(ctx context.Context, ext *runtimev1.ExtensionConfig, timeout time.Duration) ([]runtimev1.ExtensionHandler, error) {
	fail := func(ce *CallError) error {
		ce.Extension, ce.Hook = ext.Name, hooksv1.Discovery
		return counted(ce)
	}
	req := &hooksv1.DiscoveryRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.Discovery, "Request")}
	resp := &hooksv1.DiscoveryResponse{}
	u, err := baseURL(ext.Spec.ClientConfig)
	if err != nil {
		return nil, fail(&CallError{Kind: Misconfigured, Err: err})
	}
	if ce := c.call(ctx, ext.Spec.ClientConfig, hooksv1.Discovery, hooksv1.DiscoveryPath(u.Path), timeout, req, resp); ce != nil {
		return nil, fail(ce)
	}
	if resp.Status != hooksv1.ResponseStatusSuccess {
		return nil, fail(&CallError{Kind: Failure, Err: fmt.Errorf("the extension answered %s: %s", resp.Status, resp.Message)})
	}
	handlers, err := validateHandlers(ext.Name, resp.Handlers)
	if err != nil {
		return nil, fail(&CallError{Kind: Malformed, Err: err})
	}
	return handlers, nil
}

// validateHandlers checks and converts the discovered handlers (upstream's
// defaultAndValidateDiscoveryResponse). A timeout of 0 is taken as unset (10 s): status holds
// 1-30, and a handler cannot mean "no time at all".
func validateHandlers(ext string, in []hooksv1.ExtensionHandler) ([]runtimev1.ExtensionHandler, error) {
	seen := map[string]bool{}
	out := make([]runtimev1.ExtensionHandler, 0, len(in))
	for _, h := range in {
		if errs := validation.IsDNS1123Label(h.Name); len(errs) > 0 {
			return nil, fmt.Errorf("handler name %q is not a DNS-1123 label: %s", h.Name, errs[0])
		}
		if seen[h.Name] {
			return nil, fmt.Errorf("handler name %q is reported twice", h.Name)
		}
		seen[h.Name] = true
		if h.RequestHook.APIVersion != hooksv1.APIVersion || !hooksv1.IsKnownHook(h.RequestHook.Hook) {
			return nil, fmt.Errorf("handler %s serves unknown hook %s %s", h.Name, h.RequestHook.APIVersion, h.RequestHook.Hook)
		}
		timeout := int32(hooksv1.DefaultHandlersTimeoutSeconds)
		if h.TimeoutSeconds != nil && *h.TimeoutSeconds != 0 {
			timeout = *h.TimeoutSeconds
		}
		if timeout < 0 || timeout > 30 {
			return nil, fmt.Errorf("handler %s has timeoutSeconds %d, want 0-30", h.Name, timeout)
		}
		policy := runtimev1.FailurePolicyFail
		if h.FailurePolicy != nil {
			policy = runtimev1.FailurePolicy(*h.FailurePolicy)
		}
		if policy != runtimev1.FailurePolicyFail && policy != runtimev1.FailurePolicyIgnore {
			return nil, fmt.Errorf("handler %s has failurePolicy %q, want Fail or Ignore", h.Name, policy)
		}
		out = append(out, runtimev1.ExtensionHandler{Name: h.Name + "." + ext, TimeoutSeconds: &timeout, FailurePolicy: policy,
			RequestHook: runtimev1.GroupVersionHook{APIVersion: h.RequestHook.APIVersion, Hook: h.RequestHook.Hook}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
