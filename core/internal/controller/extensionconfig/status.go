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

package extensionconfig

import (
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conditions"
)

// setStatus computes the Discovered condition from what the reconcile did. A paused
// ExtensionConfig keeps the condition it had; so does one whose discovery did not run (it was
// not due: the condition is True at this generation).
func setStatus(s *scope) {
	ext := s.ext
	switch {
	case s.paused:
	case s.discoveryErr != nil:
		// The message is the client's error: it names the extension, the hook (Discovery) and
		// what failed, e.g. "calling Discovery of extension my-ext: TLSFailure: ...".
		conditions.Set(ext, conditions.False(runtimev1.ExtensionConfigDiscoveredCondition,
			runtimev1.ExtensionConfigNotDiscoveredReason, "Error in discovery: "+s.discoveryErr.Error()))
	case s.discoveredNow:
		conditions.Set(ext, conditions.True(runtimev1.ExtensionConfigDiscoveredCondition,
			runtimev1.ExtensionConfigDiscoveredReason, ""))
	}
}
