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

package server

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

// Discovery modes (PUT /control/discovery).
const (
	DiscoveryNormal    = "normal"
	DiscoveryMalformed = "malformed"
	DiscoveryHang      = "hang"
	DiscoveryFailure   = "failure"
)

// Answer is what a hook answers.
type Answer struct {
	Status            hooksv1.ResponseStatus `json:"status,omitempty"`
	Message           string                 `json:"message,omitempty"`
	RetryAfterSeconds int32                  `json:"retryAfterSeconds,omitempty"`
	// UnknownUID makes GeneratePatches answer its first item with a uid the request did not hold.
	UnknownUID bool `json:"unknownUID,omitempty"`
	// WorkersUpgrades makes GenerateUpgradePlan answer these workers' steps too (from its
	// control plane's plan, the versions newer than the request's fromWorkersKubernetesVersion).
	WorkersUpgrades []string `json:"workersUpgrades,omitempty"`
}

// Extension is the handler; the zero value is not usable, call New.
type Extension struct {
	mu        sync.Mutex
	answers   map[string]Answer
	requests  map[string][]byte
	discovery string
	// handlerNames maps a lower-cased hook to its hook name, for routing.
	hooks map[string]string
}

// New returns an Extension that allows every hook.
func New() *Extension {
	e := &Extension{answers: map[string]Answer{}, requests: map[string][]byte{}, discovery: DiscoveryNormal, hooks: map[string]string{}}
	for _, h := range append(hooksv1.LifecycleHooks(), MutationHooks()...) {
		e.hooks[strings.ToLower(h)] = h
	}
	return e
}

// wordBoundary is where a hook's name in UpperCamel case starts a new word.
var wordBoundary = regexp.MustCompile(`([a-z])([A-Z])`)

// HandlerName is the name a hook's handler is discovered under: its name in kebab case, as in
// upstream's test extension (BeforeClusterCreate -> before-cluster-create).
func HandlerName(hook string) string {
	return strings.ToLower(wordBoundary.ReplaceAllString(hook, "$1-$2"))
}

// ServeHTTP routes hook calls and control requests.
func (e *Extension) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const hookPrefix = "/" + hooksv1.Group + "/" + hooksv1.Version + "/"
	switch {
	case strings.HasPrefix(r.URL.Path, "/control/"):
		e.control(w, r, strings.TrimPrefix(r.URL.Path, "/control/"))
	case r.URL.Path == hooksv1.DiscoveryPath("") && r.Method == http.MethodPost:
		e.discover(w, r)
	case strings.HasPrefix(r.URL.Path, hookPrefix) && r.Method == http.MethodPost:
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, hookPrefix), "/")
		hook, ok := e.hooks[parts[0]]
		if !ok || len(parts) != 2 || parts[1] != HandlerName(hook) {
			http.NotFound(w, r)
			return
		}
		e.answer(w, r, hook)
	default:
		http.NotFound(w, r)
	}
}

func (e *Extension) discover(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	mode := e.discovery
	e.mu.Unlock()
	switch mode {
	case DiscoveryMalformed:
		_, _ = w.Write([]byte("this is not a DiscoveryResponse"))
		return
	case DiscoveryHang:
		<-r.Context().Done() // the caller's timeout ends it
		return
	case DiscoveryFailure:
		writeJSON(w, hooksv1.DiscoveryResponse{TypeMeta: hooksv1.TypeMeta(hooksv1.Discovery, "Response"),
			CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusFailure, Message: "discovery is switched to fail"}})
		return
	}
	resp := hooksv1.DiscoveryResponse{TypeMeta: hooksv1.TypeMeta(hooksv1.Discovery, "Response"),
		CommonResponse: hooksv1.CommonResponse{Status: hooksv1.ResponseStatusSuccess}}
	for _, h := range append(hooksv1.LifecycleHooks(), MutationHooks()...) {
		resp.Handlers = append(resp.Handlers, hooksv1.ExtensionHandler{Name: HandlerName(h),
			RequestHook: hooksv1.GroupVersionHook{APIVersion: hooksv1.APIVersion, Hook: h}})
	}
	writeJSON(w, resp)
}

// answer records the request and answers as set for hook. A request that is not JSON is
// answered Failure with HTTP 200, as upstream's server does.
func (e *Extension) answer(w http.ResponseWriter, r *http.Request, hook string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 20<<20))
	e.mu.Lock()
	e.requests[hook] = body
	a, set := e.answers[hook]
	e.mu.Unlock()
	if !set {
		a = Answer{Status: hooksv1.ResponseStatusSuccess}
	}
	if err != nil || !json.Valid(body) {
		a = Answer{Status: hooksv1.ResponseStatusFailure, Message: "the request is not JSON"}
	}
	if !isLifecycle(hook) {
		e.mutate(w, hook, body, a, set || a.Status == hooksv1.ResponseStatusFailure)
		return
	}
	out := map[string]any{"apiVersion": hooksv1.APIVersion, "kind": hook + "Response", "status": a.Status}
	if a.Message != "" {
		out["message"] = a.Message
	}
	if hooksv1.IsBlocking(hook) {
		out["retryAfterSeconds"] = a.RetryAfterSeconds
	}
	writeJSON(w, out)
}

func isLifecycle(hook string) bool {
	for _, h := range hooksv1.LifecycleHooks() {
		if h == hook {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
