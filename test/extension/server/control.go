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
	"net/http"
	"strings"
)

// control serves /control/...: see the package doc.
func (e *Extension) control(w http.ResponseWriter, r *http.Request, rest string) {
	switch {
	case rest == "discovery" && r.Method == http.MethodPut:
		var body struct {
			Mode string `json:"mode"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch body.Mode {
		case DiscoveryNormal, DiscoveryMalformed, DiscoveryHang, DiscoveryFailure:
		default:
			http.Error(w, "mode must be normal, malformed, hang or failure", http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		e.discovery = body.Mode
		e.mu.Unlock()
	case strings.HasPrefix(rest, "hooks/"):
		e.controlHook(w, r, strings.TrimPrefix(rest, "hooks/"))
	case strings.HasPrefix(rest, "requests/") && r.Method == http.MethodGet:
		e.mu.Lock()
		body, ok := e.requests[strings.TrimPrefix(rest, "requests/")]
		e.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	default:
		http.NotFound(w, r)
	}
}

func (e *Extension) controlHook(w http.ResponseWriter, r *http.Request, hook string) {
	if _, ok := e.hooks[strings.ToLower(hook)]; !ok || e.hooks[strings.ToLower(hook)] != hook {
		http.Error(w, "unknown hook "+hook, http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodPut:
		var a Answer
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if a.Status == "" {
			a.Status = "Success"
		}
		e.mu.Lock()
		e.answers[hook] = a
		e.mu.Unlock()
	case http.MethodDelete:
		e.mu.Lock()
		delete(e.answers, hook)
		e.mu.Unlock()
	default:
		http.Error(w, "PUT or DELETE", http.StatusMethodNotAllowed)
	}
}
