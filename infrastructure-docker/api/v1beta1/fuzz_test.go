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
	"sort"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion/conversiontest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// fuzzIterations per kind and direction.
const fuzzIterations = 200

// filler makes random objects whose values the API server could hold: whole-second times (the
// JSON form) and failure-domain lists that are sorted and unique (as the v1beta2 schema requires).
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.NewTime(time.Unix(c.Int63n(2e9), 0).UTC()) },
		func(fds *[]clusterv1.FailureDomain, c randfill.Continue) {
			seen := map[string]bool{}
			for range c.Intn(4) {
				var fd clusterv1.FailureDomain
				c.Fill(&fd)
				if !seen[fd.Name] {
					seen[fd.Name] = true
					*fds = append(*fds, fd)
				}
			}
			sort.Slice(*fds, func(i, j int) bool { return (*fds)[i].Name < (*fds)[j].Name })
		},
	)
}

func TestFuzzRoundTrip_DockerCluster(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DockerCluster { return &infrav1.DockerCluster{} },
		func() *DockerCluster { return &DockerCluster{} }, ConvertDockerClusterToHub, ConvertHubToDockerCluster)
}

func TestFuzzRoundTrip_DockerClusterTemplate(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DockerClusterTemplate { return &infrav1.DockerClusterTemplate{} },
		func() *DockerClusterTemplate { return &DockerClusterTemplate{} }, ConvertDockerClusterTemplateToHub, ConvertHubToDockerClusterTemplate)
}

func TestFuzzRoundTrip_DockerMachine(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DockerMachine { return &infrav1.DockerMachine{} },
		func() *DockerMachine { return &DockerMachine{} }, ConvertDockerMachineToHub, ConvertHubToDockerMachine)
}

func TestFuzzRoundTrip_DockerMachineTemplate(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DockerMachineTemplate { return &infrav1.DockerMachineTemplate{} },
		func() *DockerMachineTemplate { return &DockerMachineTemplate{} }, ConvertDockerMachineTemplateToHub, ConvertHubToDockerMachineTemplate)
}

func TestFuzzRoundTrip_DockerMachinePool(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DockerMachinePool { return &infrav1.DockerMachinePool{} },
		func() *DockerMachinePool { return &DockerMachinePool{} }, ConvertDockerMachinePoolToHub, ConvertHubToDockerMachinePool)
}

func TestFuzzRoundTrip_DockerMachinePoolTemplate(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DockerMachinePoolTemplate { return &infrav1.DockerMachinePoolTemplate{} },
		func() *DockerMachinePoolTemplate { return &DockerMachinePoolTemplate{} }, ConvertDockerMachinePoolTemplateToHub, ConvertHubToDockerMachinePoolTemplate)
}

func TestFuzzRoundTrip_DevCluster(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DevCluster { return &infrav1.DevCluster{} },
		func() *DevCluster { return &DevCluster{} }, ConvertDevClusterToHub, ConvertHubToDevCluster)
}

func TestFuzzRoundTrip_DevClusterTemplate(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DevClusterTemplate { return &infrav1.DevClusterTemplate{} },
		func() *DevClusterTemplate { return &DevClusterTemplate{} }, ConvertDevClusterTemplateToHub, ConvertHubToDevClusterTemplate)
}

func TestFuzzRoundTrip_DevMachine(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DevMachine { return &infrav1.DevMachine{} },
		func() *DevMachine { return &DevMachine{} }, ConvertDevMachineToHub, ConvertHubToDevMachine)
}

func TestFuzzRoundTrip_DevMachineTemplate(t *testing.T) {
	conversiontest.RoundTrip(t, fuzzIterations, filler, func() *infrav1.DevMachineTemplate { return &infrav1.DevMachineTemplate{} },
		func() *DevMachineTemplate { return &DevMachineTemplate{} }, ConvertDevMachineTemplateToHub, ConvertHubToDevMachineTemplate)
}
