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

package v1beta1

import (
	"testing"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

func TestFuzzRoundTrip_ClusterResourceSet(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *addonsv1.ClusterResourceSet { return &addonsv1.ClusterResourceSet{} },
		func() *ClusterResourceSet { return &ClusterResourceSet{} }, ConvertClusterResourceSetToHub, ConvertHubToClusterResourceSet,
		conversionfuzz.ShownFiller(clusterResourceSetConversion.ShowDerived))
}

func TestFuzzRoundTrip_ClusterResourceSetBinding(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *addonsv1.ClusterResourceSetBinding { return &addonsv1.ClusterResourceSetBinding{} },
		func() *ClusterResourceSetBinding { return &ClusterResourceSetBinding{} }, ConvertClusterResourceSetBindingToHub, ConvertHubToClusterResourceSetBinding, nil)
}
