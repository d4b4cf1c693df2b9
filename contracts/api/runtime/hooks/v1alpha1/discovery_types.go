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

package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// DiscoveryRequest asks an extension which handlers it serves.
type DiscoveryRequest struct {
	metav1.TypeMeta `json:",inline"`
}

// DiscoveryResponse lists an extension's handlers.
type DiscoveryResponse struct {
	metav1.TypeMeta `json:",inline"`
	CommonResponse  `json:",inline"`
	// Handlers are the handlers the extension serves.
	Handlers []ExtensionHandler `json:"handlers,omitempty"`
}

// ExtensionHandler is one handler as discovery reports it.
type ExtensionHandler struct {
	// Name is unique within the extension (a DNS-1123 label).
	Name string `json:"name"`
	// RequestHook is the hook the handler serves.
	RequestHook GroupVersionHook `json:"requestHook"`
	// TimeoutSeconds is 0-30; absent means 10.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// FailurePolicy is Fail or Ignore; absent means Fail.
	FailurePolicy *FailurePolicy `json:"failurePolicy,omitempty"`
}

// GroupVersionHook is a versioned hook.
type GroupVersionHook struct {
	// APIVersion is hooks.runtime.cluster.x-k8s.io/v1alpha1.
	APIVersion string `json:"apiVersion"`
	// Hook is the hook's name.
	Hook string `json:"hook"`
}

// FailurePolicy says how a failed call is handled.
type FailurePolicy string

const (
	// FailurePolicyIgnore treats a transport failure as Success.
	FailurePolicyIgnore FailurePolicy = "Ignore"
	// FailurePolicyFail fails the caller.
	FailurePolicyFail FailurePolicy = "Fail"
)
