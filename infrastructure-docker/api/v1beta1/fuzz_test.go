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

	"capstan.dev/contracts/testing/conversionfuzz"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

func TestFuzzRoundTrip_DockerCluster(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DockerCluster { return &infrav1.DockerCluster{} },
		func() *DockerCluster { return &DockerCluster{} }, ConvertDockerClusterToHub, ConvertHubToDockerCluster,
		conversionfuzz.ShownFiller(dockerClusterConversion.ShowDerived))
}

func TestFuzzRoundTrip_DockerClusterTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DockerClusterTemplate { return &infrav1.DockerClusterTemplate{} },
		func() *DockerClusterTemplate { return &DockerClusterTemplate{} }, ConvertDockerClusterTemplateToHub, ConvertHubToDockerClusterTemplate, nil)
}

func TestFuzzRoundTrip_DockerMachine(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DockerMachine { return &infrav1.DockerMachine{} },
		func() *DockerMachine { return &DockerMachine{} }, ConvertDockerMachineToHub, ConvertHubToDockerMachine,
		conversionfuzz.ShownFiller(dockerMachineConversion.ShowDerived))
}

func TestFuzzRoundTrip_DockerMachineTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DockerMachineTemplate { return &infrav1.DockerMachineTemplate{} },
		func() *DockerMachineTemplate { return &DockerMachineTemplate{} }, ConvertDockerMachineTemplateToHub, ConvertHubToDockerMachineTemplate, nil)
}

func TestFuzzRoundTrip_DockerMachinePool(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DockerMachinePool { return &infrav1.DockerMachinePool{} },
		func() *DockerMachinePool { return &DockerMachinePool{} }, ConvertDockerMachinePoolToHub, ConvertHubToDockerMachinePool,
		conversionfuzz.ShownFiller(dockerMachinePoolConversion.ShowDerived))
}

func TestFuzzRoundTrip_DockerMachinePoolTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DockerMachinePoolTemplate { return &infrav1.DockerMachinePoolTemplate{} },
		func() *DockerMachinePoolTemplate { return &DockerMachinePoolTemplate{} }, ConvertDockerMachinePoolTemplateToHub, ConvertHubToDockerMachinePoolTemplate, nil)
}

func TestFuzzRoundTrip_DevCluster(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DevCluster { return &infrav1.DevCluster{} },
		func() *DevCluster { return &DevCluster{} }, ConvertDevClusterToHub, ConvertHubToDevCluster,
		conversionfuzz.ShownFiller(devClusterConversion.ShowDerived))
}

func TestFuzzRoundTrip_DevClusterTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DevClusterTemplate { return &infrav1.DevClusterTemplate{} },
		func() *DevClusterTemplate { return &DevClusterTemplate{} }, ConvertDevClusterTemplateToHub, ConvertHubToDevClusterTemplate, nil)
}

func TestFuzzRoundTrip_DevMachine(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DevMachine { return &infrav1.DevMachine{} },
		func() *DevMachine { return &DevMachine{} }, ConvertDevMachineToHub, ConvertHubToDevMachine,
		conversionfuzz.ShownFiller(devMachineConversion.ShowDerived))
}

func TestFuzzRoundTrip_DevMachineTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.DevMachineTemplate { return &infrav1.DevMachineTemplate{} },
		func() *DevMachineTemplate { return &DevMachineTemplate{} }, ConvertDevMachineTemplateToHub, ConvertHubToDevMachineTemplate, nil)
}
