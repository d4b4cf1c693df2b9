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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/core/internal/runtime/registry"
)

// DefaultDiscoveryTimeout is how long a discovery call may take (upstream's).
const DefaultDiscoveryTimeout = 10 * time.Second

// maxResponseBytes bounds what is read of an answer (upstream's server caps requests at 20 MiB).
const maxResponseBytes = 20 << 20

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// Client calls Runtime Extensions.
type Client struct {
	// Registry holds the discovered handlers.
	Registry *registry.Registry
	// Reader reads the Namespace a call is for (its labels are matched by namespaceSelector).
	Reader client.Reader

	clients httpClients
}

// New returns a Client on reg that reads Namespaces through reader.
func New(reg *registry.Registry, reader client.Reader) *Client {
	return &Client{Registry: reg, Reader: reader}
}

// call is one POST of req to the handler of hook (or discovery) at path below cfg's URL; resp is
// filled from a 200 answer. The request is counted and timed (metrics.go). Any failure is a
// *CallError (without Extension/Hook/Handler: the caller fills them in).
func (c *Client) call(ctx context.Context, cfg runtimev1.ClientConfig, hook, path string, timeout time.Duration, req, resp any) *CallError {
	u, err := baseURL(cfg)
	if err != nil {
		return &CallError{Kind: Misconfigured, Err: err}
	}
	hc, err := c.clients.get(u.Host, cfg.CABundle)
	if err != nil {
		return &CallError{Kind: Misconfigured, Err: err}
	}
	u.Path = path
	u.RawQuery = "timeout=" + timeout.String()
	body, err := json.Marshal(req)
	if err != nil {
		return &CallError{Kind: Misconfigured, Err: fmt.Errorf("encoding the request: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return &CallError{Kind: Misconfigured, Err: err}
	}
	httpReq.Header.Set("Content-Type", "application/json")
	obs := observeRequest(u.Host, hook)
	defer obs.done()
	httpResp, err := hc.Do(httpReq)
	if err != nil {
		return &CallError{Kind: transportKind(ctx, err), Err: err}
	}
	defer httpResp.Body.Close()
	obs.answered(httpResp.StatusCode)
	data, err := io.ReadAll(io.LimitReader(httpResp.Body, maxResponseBytes))
	if err != nil {
		return &CallError{Kind: transportKind(ctx, err), Err: fmt.Errorf("reading the answer: %w", err)}
	}
	if httpResp.StatusCode != http.StatusOK {
		return &CallError{Kind: BadStatus, Err: fmt.Errorf("POST %s answered HTTP %d: %.200s", u.Path, httpResp.StatusCode, data)}
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return &CallError{Kind: Malformed, Err: fmt.Errorf("decoding the answer to POST %s: %w (body %.200q)", u.Path, err, data)}
	}
	obs.decoded(resp)
	if r, ok := resp.(hooksv1.Response); ok && r.GetStatus() != hooksv1.ResponseStatusSuccess && r.GetStatus() != hooksv1.ResponseStatusFailure {
		return &CallError{Kind: Malformed, Err: fmt.Errorf("the answer to POST %s has status %q, want Success or Failure", u.Path, r.GetStatus())}
	}
	return nil
}
