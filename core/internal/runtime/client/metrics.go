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
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// The metrics of Runtime Extension calls, in controller-runtime's registry (served on the
// manager's metrics endpoint). The first two are upstream's, with upstream's names and labels,
// so its dashboards and alerts work unchanged; upstream has no per-extension error count, hence
// the third, Capstan's.
var (
	// requestsTotal counts HTTP requests (discovery and hook calls): code is the HTTP status, or
	// "<error>" when no answer came; status the answer's Success/Failure, or "Unknown".
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: "capi_runtime_sdk",
		Name:      "requests_total",
		Help:      "Number of HTTP requests, partitioned by status code, host, hook and response status.",
	}, []string{"code", "host", "group", "version", "hook", "status"})

	// requestDuration is the latency of the same requests, answer read and decoded.
	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "capi_runtime_sdk",
		Name:      "request_duration_seconds",
		Help:      "Request duration in seconds, broken down by hook and host.",
		Buckets:   []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60},
	}, []string{"host", "group", "version", "hook"})

	// callErrors counts failed calls by ExtensionConfig, hook and CallError kind, those a
	// failurePolicy Ignore masked included: what an alert on a misbehaving extension needs.
	callErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "capstan_runtime_sdk_call_errors_total",
		Help: "Number of failed Runtime Extension calls, partitioned by ExtensionConfig, hook and error kind.",
	}, []string{"extension", "hook", "kind"})
)

func init() {
	metrics.Registry.MustRegister(requestsTotal, requestDuration, callErrors)
}

// unknownStatus is requestsTotal's status when no answer was decoded (upstream's).
const unknownStatus = "Unknown"

// requestObservation records one HTTP request in requestsTotal and requestDuration when done.
type requestObservation struct {
	host, hook   string
	start        time.Time
	code, status string
}

func observeRequest(host, hook string) *requestObservation {
	return &requestObservation{host: host, hook: hook, start: time.Now(), code: "<error>", status: unknownStatus}
}

// answered records the HTTP status of the answer.
func (o *requestObservation) answered(code int) { o.code = strconv.Itoa(code) }

// decoded records the answer's status, when it has one.
func (o *requestObservation) decoded(resp any) {
	if r, ok := resp.(hooksv1.Response); ok && r.GetStatus() != "" {
		o.status = string(r.GetStatus())
	}
}

func (o *requestObservation) done() {
	requestsTotal.WithLabelValues(o.code, o.host, hooksv1.Group, hooksv1.Version, o.hook, o.status).Inc()
	requestDuration.WithLabelValues(o.host, hooksv1.Group, hooksv1.Version, o.hook).Observe(time.Since(o.start).Seconds())
}

// counted counts ce in callErrors and returns it: every CallError handed to a caller (or masked
// by failurePolicy Ignore) passes here once, when its extension and hook are filled in.
func counted(ce *CallError) *CallError {
	callErrors.WithLabelValues(ce.Extension, ce.Hook, string(ce.Kind)).Inc()
	return ce
}
