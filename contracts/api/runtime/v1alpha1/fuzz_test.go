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
	"testing"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

// TestFuzzRoundTrip_ExtensionConfig: random v1alpha1 and v1beta2 objects come back unchanged
// from a round trip through the other version (the empty-string/nil pointer differences are
// recorded on the converted object).
func TestFuzzRoundTrip_ExtensionConfig(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *runtimev1.ExtensionConfig { return &runtimev1.ExtensionConfig{} },
		func() *ExtensionConfig { return &ExtensionConfig{} }, ConvertExtensionConfigToHub, ConvertHubToExtensionConfig, nil)
}
