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

	"sigs.k8s.io/randfill"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

func TestFuzzRoundTrip_Cluster(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.Cluster { return &clusterv1.Cluster{} }, func() *Cluster { return &Cluster{} },
		ConvertClusterToHub, ConvertHubToCluster, conversionfuzz.ShownFiller(clusterConversion.ShowDerived))
}

func TestFuzzRoundTrip_Machine(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.Machine { return &clusterv1.Machine{} }, func() *Machine { return &Machine{} },
		ConvertMachineToHub, ConvertHubToMachine, conversionfuzz.ShownFiller(machineConversion.ShowDerived))
}

func TestFuzzRoundTrip_MachineSet(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.MachineSet { return &clusterv1.MachineSet{} }, func() *MachineSet { return &MachineSet{} },
		ConvertMachineSetToHub, ConvertHubToMachineSet, conversionfuzz.ShownFiller(machineSetConversion.ShowDerived))
}

func TestFuzzRoundTrip_MachineDeployment(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.MachineDeployment { return &clusterv1.MachineDeployment{} },
		func() *MachineDeployment { return &MachineDeployment{} }, ConvertMachineDeploymentToHub, ConvertHubToMachineDeployment, conversionfuzz.ShownFiller(machineDeploymentConversion.ShowDerived))
}

func TestFuzzRoundTrip_MachineHealthCheck(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.MachineHealthCheck { return &clusterv1.MachineHealthCheck{} },
		func() *MachineHealthCheck { return &MachineHealthCheck{} }, ConvertMachineHealthCheckToHub, ConvertHubToMachineHealthCheck, conversionfuzz.ShownFiller(machineHealthCheckConversion.ShowDerived))
}

func TestFuzzRoundTrip_MachinePool(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.MachinePool { return &clusterv1.MachinePool{} }, func() *MachinePool { return &MachinePool{} },
		ConvertMachinePoolToHub, ConvertHubToMachinePool, conversionfuzz.ShownFiller(machinePoolConversion.ShowDerived))
}

func TestFuzzRoundTrip_MachineDrainRule(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.MachineDrainRule { return &clusterv1.MachineDrainRule{} },
		func() *MachineDrainRule { return &MachineDrainRule{} }, ConvertMachineDrainRuleToHub, ConvertHubToMachineDrainRule, nil)
}

func TestFuzzRoundTrip_ClusterClass(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *clusterv1.ClusterClass { return &clusterv1.ClusterClass{} }, func() *ClusterClass { return &ClusterClass{} },
		ConvertClusterClassToHub, ConvertHubToClusterClass, conversionfuzz.ShownFiller(clusterClassConversion.ShowDerived,
			boundedSchema[clusterv1.JSONSchemaProps](), boundedSchema[JSONSchemaProps]()))
}

// boundedSchema fills variable schemas two levels deep: the schema is recursive (properties,
// items, allOf, ...), and unbounded random nesting never ends. Below that a schema has only its
// scalar fields, which is where the two versions differ (booleans and pointers).
func boundedSchema[T clusterv1.JSONSchemaProps | JSONSchemaProps]() func(*T, randfill.Continue) {
	depth := 0
	return func(s *T, c randfill.Continue) {
		if depth < 2 {
			depth++
			c.FillNoCustom(s)
			depth--
			return
		}
		switch s := any(s).(type) {
		case *clusterv1.JSONSchemaProps:
			c.Fill(&s.Type)
			c.Fill(&s.UniqueItems)
			c.Fill(&s.ExclusiveMinimum)
			c.Fill(&s.XPreserveUnknownFields)
			c.Fill(&s.Maximum)
		case *JSONSchemaProps:
			c.Fill(&s.Type)
			c.Fill(&s.UniqueItems)
			c.Fill(&s.ExclusiveMinimum)
			c.Fill(&s.XPreserveUnknownFields)
			c.Fill(&s.Maximum)
		}
	}
}
