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
	"net/url"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// gathered returns the series of family in controller-runtime's registry (what the manager's
// metrics endpoint serves) whose labels include want; nil when there is none.
func gathered(t *testing.T, family string, want map[string]string) *dto.Metric {
	t.Helper()
	families, err := metrics.Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for k, v := range want {
				found := false
				for _, l := range m.GetLabel() {
					found = found || (l.GetName() == k && l.GetValue() == v)
				}
				if !found {
					continue series
				}
			}
			return m
		}
	}
	return nil
}

// TestMetrics_CountAndTimeEveryCallAndCountErrorsPerExtension: each call is counted in
// capi_runtime_sdk_requests_total (HTTP code, host, hook, answer status) and timed in
// capi_runtime_sdk_request_duration_seconds, as upstream; a Failure answer and an unreachable
// extension also count in capstan_runtime_sdk_call_errors_total under their ExtensionConfig.
func TestMetrics_CountAndTimeEveryCallAndCountErrorsPerExtension(t *testing.T) {
	ctx := context.Background()
	c := newClient()
	ext := newExtension(t)
	ext.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/allow", hooksv1.BeforeClusterCreateResponse{
		CommonRetryResponse: hooksv1.CommonRetryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}})
	ext.answer("/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/refuse", hooksv1.BeforeClusterCreateResponse{
		CommonRetryResponse: hooksv1.CommonRetryResponse{CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusFailure, Message: "no"}}})
	register(t, c, ext, "metrics-ext", hook("allow", hooksv1.BeforeClusterCreate, nil, nil), hook("refuse", hooksv1.BeforeClusterCreate, nil, nil))
	gone := newExtension(t)
	register(t, c, gone, "gone-ext", hook("allow", hooksv1.BeforeClusterCreate, nil, nil))
	gone.srv.Close()
	host := func(e *extension) string { u, _ := url.Parse(e.srv.URL); return u.Host }
	requests := func(e *extension, code, status string) float64 {
		return testutil.ToFloat64(requestsTotal.WithLabelValues(code, host(e), hooksv1.Group, hooksv1.Version, hooksv1.BeforeClusterCreate, status))
	}

	for range 2 {
		_, err := c.CallHandler(ctx, hooksv1.BeforeClusterCreate, "allow.metrics-ext", "default", beforeCreate(nil), &hooksv1.BeforeClusterCreateResponse{})
		require.NoError(t, err)
	}
	_, err := c.CallHandler(ctx, hooksv1.BeforeClusterCreate, "refuse.metrics-ext", "default", beforeCreate(nil), &hooksv1.BeforeClusterCreateResponse{})
	require.Equal(t, Failure, KindOf(err))
	_, err = c.CallHandler(ctx, hooksv1.BeforeClusterCreate, "allow.gone-ext", "default", beforeCreate(nil), &hooksv1.BeforeClusterCreateResponse{})
	require.Equal(t, Unreachable, KindOf(err))

	require.InDelta(t, 2, requests(ext, "200", "Success"), 0)
	require.InDelta(t, 1, requests(ext, "200", "Failure"), 0)
	require.InDelta(t, 1, requests(gone, "<error>", "Unknown"), 0)
	require.InDelta(t, 1, testutil.ToFloat64(requestsTotal.WithLabelValues("200", host(ext), hooksv1.Group, hooksv1.Version, hooksv1.Discovery, "Success")), 0,
		"discovery is counted too")

	latency := gathered(t, "capi_runtime_sdk_request_duration_seconds", map[string]string{"host": host(ext), "hook": hooksv1.BeforeClusterCreate})
	require.NotNil(t, latency, "the latency histogram is served from controller-runtime's registry")
	require.EqualValues(t, 3, latency.GetHistogram().GetSampleCount())

	require.NotNil(t, gathered(t, "capstan_runtime_sdk_call_errors_total", map[string]string{"extension": "metrics-ext"}))
	require.InDelta(t, 1, testutil.ToFloat64(callErrors.WithLabelValues("metrics-ext", hooksv1.BeforeClusterCreate, string(Failure))), 0)
	require.InDelta(t, 1, testutil.ToFloat64(callErrors.WithLabelValues("gone-ext", hooksv1.BeforeClusterCreate, string(Unreachable))), 0)
	require.Zero(t, testutil.ToFloat64(callErrors.WithLabelValues("metrics-ext", hooksv1.BeforeClusterCreate, string(Unreachable))))
}
