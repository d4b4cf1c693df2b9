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

package conversion

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	infrav1alpha1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

var pools = []ipamv1.IPPoolReference{
	{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "pool-a"},
	{APIGroup: "ipam.example.com", Kind: "TestPool", Name: "pool-b"},
}

// TestExampleMachine_AddressesFromPoolsMoveUnderNetwork checks the one schema change both ways,
// and that each round trip gives back what it started from.
func TestExampleMachine_AddressesFromPoolsMoveUnderNetwork(t *testing.T) {
	ctx := context.Background()
	old := &infrav1alpha1.ExampleMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: "ns", Labels: map[string]string{"a": "b"}},
		Spec:       infrav1alpha1.ExampleMachineSpec{ProviderID: "example:///m1", AddressesFromPools: pools},
		Status: infrav1alpha1.ExampleMachineStatus{FailureDomain: "fd-a",
			Initialization: infrav1alpha1.ExampleMachineInitializationStatus{Provisioned: ptr.To(true)}},
	}
	hub := &infrav1.ExampleMachine{}
	require.NoError(t, ConvertExampleMachineToHub(ctx, old.DeepCopy(), hub))
	require.Equal(t, pools, hub.Spec.Network.AddressesFromPools)
	require.Equal(t, "example:///m1", hub.Spec.ProviderID)
	require.Equal(t, "fd-a", hub.Status.FailureDomain)
	require.Equal(t, old.ObjectMeta, hub.ObjectMeta)

	back := &infrav1alpha1.ExampleMachine{}
	require.NoError(t, ConvertHubToExampleMachine(ctx, hub, back, nil))
	require.Equal(t, old, back, "v1alpha1 -> v1alpha2 -> v1alpha1")

	hub = &infrav1.ExampleMachine{ObjectMeta: metav1.ObjectMeta{Name: "m2"},
		Spec: infrav1.ExampleMachineSpec{Network: infrav1.ExampleMachineNetwork{AddressesFromPools: pools}}}
	spoke, hubBack := &infrav1alpha1.ExampleMachine{}, &infrav1.ExampleMachine{}
	require.NoError(t, ConvertHubToExampleMachine(ctx, hub.DeepCopy(), spoke, nil))
	require.Equal(t, pools, spoke.Spec.AddressesFromPools)
	require.NoError(t, ConvertExampleMachineToHub(ctx, spoke, hubBack))
	require.Equal(t, hub, hubBack, "v1alpha2 -> v1alpha1 -> v1alpha2")
}

// TestExampleMachineTemplate_AddressesFromPoolsMoveUnderNetwork is the same for the template's
// spec, which is an ExampleMachineSpec.
func TestExampleMachineTemplate_AddressesFromPoolsMoveUnderNetwork(t *testing.T) {
	ctx := context.Background()
	old := &infrav1alpha1.ExampleMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t1"},
		Spec: infrav1alpha1.ExampleMachineTemplateSpec{Template: infrav1alpha1.ExampleMachineTemplateResource{
			Spec: infrav1alpha1.ExampleMachineSpec{AddressesFromPools: pools}}}}
	hub := &infrav1.ExampleMachineTemplate{}
	require.NoError(t, ConvertExampleMachineTemplateToHub(ctx, old.DeepCopy(), hub))
	require.Equal(t, pools, hub.Spec.Template.Spec.Network.AddressesFromPools)
	back := &infrav1alpha1.ExampleMachineTemplate{}
	require.NoError(t, ConvertHubToExampleMachineTemplate(ctx, hub, back, nil))
	require.Equal(t, old, back)
}

// The fuzz round trips fill every field of either version: a field one version gains and the
// conversion forgets is lost on the way back, and fails them.
func TestFuzzRoundTrip_ExampleCluster(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.ExampleCluster { return &infrav1.ExampleCluster{} },
		func() *infrav1alpha1.ExampleCluster { return &infrav1alpha1.ExampleCluster{} },
		ConvertExampleClusterToHub, ConvertHubToExampleCluster, nil)
}

func TestFuzzRoundTrip_ExampleMachine(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.ExampleMachine { return &infrav1.ExampleMachine{} },
		func() *infrav1alpha1.ExampleMachine { return &infrav1alpha1.ExampleMachine{} },
		ConvertExampleMachineToHub, ConvertHubToExampleMachine, nil)
}

func TestFuzzRoundTrip_ExampleMachineTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *infrav1.ExampleMachineTemplate { return &infrav1.ExampleMachineTemplate{} },
		func() *infrav1alpha1.ExampleMachineTemplate { return &infrav1alpha1.ExampleMachineTemplate{} },
		ConvertExampleMachineTemplateToHub, ConvertHubToExampleMachineTemplate, nil)
}
