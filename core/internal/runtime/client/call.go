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
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/core/internal/runtime/registry"
)

// ErrNotMatched is returned (wrapped in a Misconfigured CallError) by CallHandler when the
// handler's namespaceSelector does not match the namespace.
var ErrNotMatched = errors.New("the ExtensionConfig's namespaceSelector does not match the namespace")

// CallHandler calls the handler with the full name name for hook, for an object in namespace.
// With failurePolicy Ignore, a transport failure makes resp a Success with an empty message
// and note says what was ignored; every other failure is a *CallError.
func (c *Client) CallHandler(ctx context.Context, hook, name, namespace string, req hooksv1.Request, resp hooksv1.Response) (note string, err error) {
	reg, ok := c.Registry.Get(name)
	if !ok {
		return "", &CallError{Hook: hook, Handler: name, Kind: Misconfigured, Err: errors.New("no such handler is registered (is its ExtensionConfig Discovered?)")}
	}
	fail := func(ce *CallError) *CallError {
		ce.Extension, ce.Hook, ce.Handler = reg.ExtensionConfig, hook, reg.Name
		return counted(ce)
	}
	if reg.Hook != hook {
		return "", fail(&CallError{Kind: Misconfigured, Err: fmt.Errorf("the handler serves %s, not %s", reg.Hook, hook)})
	}
	matched, err := c.matches(ctx, reg.NamespaceSelector, namespace)
	if err != nil {
		return "", fail(&CallError{Kind: Misconfigured, Err: err})
	}
	if !matched {
		return "", fail(&CallError{Kind: Misconfigured, Err: fmt.Errorf("%w %s", ErrNotMatched, namespace)})
	}
	return c.callRegistered(ctx, reg, req, resp, fail)
}

// callRegistered does the call of a handler already looked up and matched.
func (c *Client) callRegistered(ctx context.Context, reg registry.Registration, req hooksv1.Request, resp hooksv1.Response,
	fail func(*CallError) *CallError) (string, error) {
	settings := maps.Clone(reg.Settings)
	if settings == nil && len(req.GetSettings()) > 0 {
		settings = map[string]string{}
	}
	maps.Copy(settings, req.GetSettings()) // the caller's keys win
	req.SetSettings(settings)
	u, err := baseURL(reg.ClientConfig)
	if err != nil {
		return "", fail(&CallError{Kind: Misconfigured, Err: err})
	}
	timeout := time.Duration(reg.TimeoutSeconds) * time.Second
	ce := c.call(ctx, reg.ClientConfig, reg.Hook, hooksv1.HandlerPath(u.Path, reg.Hook, reg.WireName()), timeout, req, resp)
	if ce != nil {
		ce = fail(ce)
		if reg.FailurePolicy == runtimev1.FailurePolicyIgnore && ce.ignorable() {
			resp.SetStatus(hooksv1.ResponseStatusSuccess)
			resp.SetMessage("")
			if r, ok := resp.(hooksv1.RetryResponse); ok {
				r.SetRetryAfterSeconds(0)
			}
			return fmt.Sprintf("ignored (failurePolicy Ignore): %v", ce), nil
		}
		return "", ce
	}
	if resp.GetStatus() == hooksv1.ResponseStatusFailure {
		return "", fail(&CallError{Kind: Failure, Err: fmt.Errorf("the handler answered Failure: %s", resp.GetMessage())})
	}
	return "", nil
}

// CallAll calls every handler of hook whose namespaceSelector matches namespace, one after the
// other in name order, and stops at the first error. resp is then the aggregate: Success, with
// the lowest non-zero retryAfterSeconds of the answers (a blocking hook) and their messages
// joined with ", ". newResp makes a fresh response for each call. notes say what was ignored.
func (c *Client) CallAll(ctx context.Context, hook, namespace string, req hooksv1.Request, resp hooksv1.Response,
	newResp func() hooksv1.Response) (notes []string, err error) {
	var messages []string
	var retry int32
	for _, reg := range c.Registry.ForHook(hook) {
		fail := func(ce *CallError) *CallError {
			ce.Extension, ce.Hook, ce.Handler = reg.ExtensionConfig, hook, reg.Name
			return counted(ce)
		}
		matched, err := c.matches(ctx, reg.NamespaceSelector, namespace)
		if err != nil {
			return notes, fail(&CallError{Kind: Misconfigured, Err: err})
		}
		if !matched {
			continue
		}
		one := newResp()
		note, err := c.callRegistered(ctx, reg, req, one, fail)
		if err != nil {
			return notes, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		if m := one.GetMessage(); m != "" {
			messages = append(messages, m)
		}
		if r, ok := one.(hooksv1.RetryResponse); ok && r.GetRetryAfterSeconds() > 0 && (retry == 0 || r.GetRetryAfterSeconds() < retry) {
			retry = r.GetRetryAfterSeconds()
		}
	}
	resp.SetStatus(hooksv1.ResponseStatusSuccess)
	resp.SetMessage(strings.Join(messages, ", "))
	if r, ok := resp.(hooksv1.RetryResponse); ok {
		r.SetRetryAfterSeconds(retry)
	}
	return notes, nil
}

// matches says whether selector matches the labels of the Namespace namespace.
func (c *Client) matches(ctx context.Context, selector *metav1.LabelSelector, namespace string) (bool, error) {
	if selector == nil || (len(selector.MatchLabels) == 0 && len(selector.MatchExpressions) == 0) {
		return true, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return false, fmt.Errorf("namespaceSelector: %w", err)
	}
	ns := &corev1.Namespace{}
	if err := c.Reader.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return false, fmt.Errorf("reading Namespace %s: %w", namespace, err)
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}
