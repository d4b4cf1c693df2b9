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

	ctrl "sigs.k8s.io/controller-runtime"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// The topology mutation and upgrade-plan hooks, each a call of one named handler (upstream's CallExtension): they
// make *Client the ExternalPatcher of capstan.dev/core/internal/topology/patches and the
// variable discoverer of the ClusterClass controller and the upgrade planner of clusterstate. A call that failurePolicy Ignore skipped is
// logged and answers an empty Success: no patch, no objection, no variable.

// GeneratePatches calls handler for an object in namespace.
func (c *Client) GeneratePatches(ctx context.Context, handler, namespace string, req *hooksv1.GeneratePatchesRequest) (*hooksv1.GeneratePatchesResponse, error) {
	resp := &hooksv1.GeneratePatchesResponse{}
	if ignored, err := c.callOne(ctx, hooksv1.GeneratePatches, handler, namespace, req, resp); err != nil || ignored {
		return &hooksv1.GeneratePatchesResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}, err
	}
	return resp, nil
}

// ValidateTopology calls handler for an object in namespace; a Failure answer is an error.
func (c *Client) ValidateTopology(ctx context.Context, handler, namespace string, req *hooksv1.ValidateTopologyRequest) (*hooksv1.ValidateTopologyResponse, error) {
	resp := &hooksv1.ValidateTopologyResponse{}
	if ignored, err := c.callOne(ctx, hooksv1.ValidateTopology, handler, namespace, req, resp); err != nil || ignored {
		return &hooksv1.ValidateTopologyResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}, err
	}
	return resp, nil
}

// DiscoverVariables calls handler for an object in namespace.
func (c *Client) DiscoverVariables(ctx context.Context, handler, namespace string, req *hooksv1.DiscoverVariablesRequest) (*hooksv1.DiscoverVariablesResponse, error) {
	resp := &hooksv1.DiscoverVariablesResponse{}
	if ignored, err := c.callOne(ctx, hooksv1.DiscoverVariables, handler, namespace, req, resp); err != nil || ignored {
		return &hooksv1.DiscoverVariablesResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}, err
	}
	return resp, nil
}

// GenerateUpgradePlan calls handler for an object in namespace.
func (c *Client) GenerateUpgradePlan(ctx context.Context, handler, namespace string, req *hooksv1.GenerateUpgradePlanRequest) (*hooksv1.GenerateUpgradePlanResponse, error) {
	resp := &hooksv1.GenerateUpgradePlanResponse{}
	if ignored, err := c.callOne(ctx, hooksv1.GenerateUpgradePlan, handler, namespace, req, resp); err != nil || ignored {
		return &hooksv1.GenerateUpgradePlanResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}, err
	}
	return resp, nil
}

// callOne calls one handler; ignored says failurePolicy Ignore masked a failure, so whatever was
// decoded of the answer must not be used.
func (c *Client) callOne(ctx context.Context, hook, handler, namespace string, req hooksv1.Request, resp hooksv1.Response) (ignored bool, err error) {
	note, err := c.CallHandler(ctx, hook, handler, namespace, req, resp)
	if note != "" {
		ctrl.LoggerFrom(ctx).Info("Runtime Extension call skipped", "hook", hook, "handler", handler, "note", note)
	}
	return note != "", err
}
