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

import (
	"path"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group and Version of the hook messages.
const (
	Group   = "hooks.runtime.cluster.x-k8s.io"
	Version = "v1alpha1"
	// APIVersion is the apiVersion of every request and response.
	APIVersion = Group + "/" + Version
	// DefaultHandlersTimeoutSeconds is a handler's timeout when discovery names none.
	DefaultHandlersTimeoutSeconds = 10
)

// Hook names, as a handler's requestHook.hook says them.
const (
	Discovery                    = "Discovery"
	BeforeClusterCreate          = "BeforeClusterCreate"
	AfterControlPlaneInitialized = "AfterControlPlaneInitialized"
	BeforeClusterUpgrade         = "BeforeClusterUpgrade"
	BeforeControlPlaneUpgrade    = "BeforeControlPlaneUpgrade"
	AfterControlPlaneUpgrade     = "AfterControlPlaneUpgrade"
	BeforeWorkersUpgrade         = "BeforeWorkersUpgrade"
	AfterWorkersUpgrade          = "AfterWorkersUpgrade"
	AfterClusterUpgrade          = "AfterClusterUpgrade"
	BeforeClusterDelete          = "BeforeClusterDelete"
	GeneratePatches              = "GeneratePatches"
	ValidateTopology             = "ValidateTopology"
	DiscoverVariables            = "DiscoverVariables"
	GenerateUpgradePlan          = "GenerateUpgradePlan"
)

// hooks maps every hook a handler may serve to whether it blocks (its response carries
// retryAfterSeconds). Discovery is not here: no handler serves it, the server answers it.
var hooks = map[string]bool{
	BeforeClusterCreate: true, AfterControlPlaneInitialized: false, BeforeClusterUpgrade: true,
	BeforeControlPlaneUpgrade: true, AfterControlPlaneUpgrade: true, BeforeWorkersUpgrade: true,
	AfterWorkersUpgrade: true, AfterClusterUpgrade: true, BeforeClusterDelete: true,
	GeneratePatches: false, ValidateTopology: false, DiscoverVariables: false, GenerateUpgradePlan: false,
}

// IsKnownHook says whether hook is a hook of this version a handler can serve.
func IsKnownHook(hook string) bool { _, ok := hooks[hook]; return ok }

// IsBlocking says whether hook's response carries retryAfterSeconds.
func IsBlocking(hook string) bool { return hooks[hook] }

// LifecycleHooks are the lifecycle hooks, in the order a Cluster meets them.
func LifecycleHooks() []string {
	return []string{BeforeClusterCreate, AfterControlPlaneInitialized, BeforeClusterUpgrade, BeforeControlPlaneUpgrade,
		AfterControlPlaneUpgrade, BeforeWorkersUpgrade, AfterWorkersUpgrade, AfterClusterUpgrade, BeforeClusterDelete}
}

// DiscoveryPath is the path of the discovery call, below the extension's URL path: a singleton
// hook, so without a handler segment.
func DiscoveryPath(prefix string) string {
	return path.Join("/", prefix, "/"+Group, Version, strings.ToLower(Discovery))
}

// HandlerPath is the path a handler is called at, below the extension's URL path (upstream's
// catalog GVHToPath plus the handler segment): /hooks.runtime.cluster.x-k8s.io/v1alpha1/<hook
// lower-case>/<handler name lower-case>. handler is the name the extension reported (without
// the ".<ExtensionConfig name>" suffix).
func HandlerPath(prefix, hook, handler string) string {
	return path.Join("/", prefix, "/"+Group, Version, strings.ToLower(hook), strings.ToLower(handler))
}

// TypeMeta is the apiVersion and kind of a message of hook and suffix ("Request" or "Response").
func TypeMeta(hook, suffix string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: APIVersion, Kind: hook + suffix}
}

// CommonRequest is what every request carries.
type CommonRequest struct {
	// Settings are the ExtensionConfig's settings, overridden by the caller's.
	Settings map[string]string `json:"settings,omitempty"`
}

// ResponseStatus is the outcome of a call.
type ResponseStatus string

const (
	// ResponseStatusSuccess: the handler did its work (or, with retryAfterSeconds > 0, asks to
	// be called again).
	ResponseStatusSuccess ResponseStatus = "Success"
	// ResponseStatusFailure: the handler refuses; never masked by failurePolicy Ignore.
	ResponseStatusFailure ResponseStatus = "Failure"
)

// CommonResponse is what every response carries.
type CommonResponse struct {
	// Status is Success or Failure.
	Status ResponseStatus `json:"status"`
	// Message says why, for a user.
	Message string `json:"message,omitempty"`
}

// CommonRetryResponse is the response of a blocking hook.
type CommonRetryResponse struct {
	CommonResponse `json:",inline"`
	// RetryAfterSeconds > 0 with Success blocks: call again after that many seconds. Always
	// serialized, as upstream does.
	RetryAfterSeconds int32 `json:"retryAfterSeconds"`
}

// PatchType is how a GeneratePatches item's patch is written.
type PatchType string

const (
	// JSONPatchType is an RFC 6902 JSON patch.
	JSONPatchType PatchType = "JSONPatch"
	// JSONMergePatchType is an RFC 7386 JSON merge patch.
	JSONMergePatchType PatchType = "JSONMergePatch"
)
