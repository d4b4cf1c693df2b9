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
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversion/conversiontest"
)

// fuzzIterations per kind and direction; ten times as many find nothing more and take minutes on two cores.
const fuzzIterations = 200

// resolver stands in for the CRD contract lookup: every group is served at v1beta2.
var resolver = conversion.ResolverFunc(func(_ context.Context, gk schema.GroupKind) (string, error) {
	return schema.GroupVersion{Group: gk.Group, Version: "v1beta2"}.String(), nil
})

// filler makes random objects whose values the API server could hold: whole-second times (the
// JSON form), well-formed group names, IntOrStrings of a real type, and failure domain lists
// that are sorted and unique (as the v1beta2 schema requires).
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.NewTime(time.Unix(c.Int63n(2e9), 0).UTC()) },
		// Topology variable values are JSON documents: random bytes are not one.
		func(j *apiextensionsv1.JSON, c randfill.Continue) { j.Raw = []byte(strconv.Quote(token(c))) },
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(fmt.Sprintf("%d%%", c.Intn(100)))
			}
		},
		func(r *corev1.ObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.APIVersion = token(c) + ".example.com/v" + fmt.Sprint(c.Intn(3))
		},
		func(r *clusterv1.ContractVersionedObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.APIGroup = token(c) + ".example.com"
		},
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

func token(c randfill.Continue) string {
	return strings.Map(func(r rune) rune { return 'a' + r%26 }, fmt.Sprint(c.Uint64()))
}

// roundTrip checks both directions for one kind (conversiontest.RoundTrip).
func roundTrip[H, S client.Object](t *testing.T, newHub func() H, newSpoke func() S,
	up func(context.Context, S, H) error, down func(context.Context, H, S, conversion.APIVersionResolver) error) {
	t.Helper()
	conversiontest.RoundTrip(t, fuzzIterations, filler, newHub, newSpoke, up,
		func(ctx context.Context, h H, s S) error { return down(ctx, h, s, resolver) })
}

func TestFuzzRoundTrip_Cluster(t *testing.T) {
	roundTrip(t, func() *clusterv1.Cluster { return &clusterv1.Cluster{} }, func() *Cluster { return &Cluster{} },
		ConvertClusterToHub, ConvertHubToCluster)
}

func TestFuzzRoundTrip_Machine(t *testing.T) {
	roundTrip(t, func() *clusterv1.Machine { return &clusterv1.Machine{} }, func() *Machine { return &Machine{} },
		ConvertMachineToHub, ConvertHubToMachine)
}

func TestFuzzRoundTrip_MachineSet(t *testing.T) {
	roundTrip(t, func() *clusterv1.MachineSet { return &clusterv1.MachineSet{} }, func() *MachineSet { return &MachineSet{} },
		ConvertMachineSetToHub, ConvertHubToMachineSet)
}

func TestFuzzRoundTrip_MachineDeployment(t *testing.T) {
	roundTrip(t, func() *clusterv1.MachineDeployment { return &clusterv1.MachineDeployment{} },
		func() *MachineDeployment { return &MachineDeployment{} }, ConvertMachineDeploymentToHub, ConvertHubToMachineDeployment)
}

func TestFuzzRoundTrip_MachineHealthCheck(t *testing.T) {
	roundTrip(t, func() *clusterv1.MachineHealthCheck { return &clusterv1.MachineHealthCheck{} },
		func() *MachineHealthCheck { return &MachineHealthCheck{} }, ConvertMachineHealthCheckToHub, ConvertHubToMachineHealthCheck)
}

func TestFuzzRoundTrip_MachinePool(t *testing.T) {
	roundTrip(t, func() *clusterv1.MachinePool { return &clusterv1.MachinePool{} }, func() *MachinePool { return &MachinePool{} },
		ConvertMachinePoolToHub, ConvertHubToMachinePool)
}
