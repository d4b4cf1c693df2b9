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

package kubeadmcontrolplane

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestMachines_NamedByTheTemplateWithItsReadinessGatesAndTaintsKeptInPlace: a Machine (with its
// KubeadmConfig and InfraMachine) is named by spec.machineNaming.template and gets the
// KubeadmControlPlane's own readiness gates (its component and etcd health conditions, as
// upstream's), then machineTemplate.spec.readinessGates, and taints; changing them later updates
// the Machine in place, without a rollout, as upstream.
func TestMachines_NamedByTheTemplateWithItsReadinessGatesAndTaintsKeptInPlace(t *testing.T) {
	startController(t)
	gpu := clusterv1.MachineReadinessGate{ConditionType: "example.com/GPUReady"}
	dedicated := clusterv1.MachineTaint{Key: "example.com/dedicated", Value: "cp", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}
	f := newFixture(t, func(o *fixtureOptions) {
		o.kcp = func(k *controlplanev1.KubeadmControlPlane) {
			k.Spec.MachineNaming.Template = "{{ .cluster.name }}-control-{{ .random }}"
			k.Spec.MachineTemplate.Spec.ReadinessGates = []clusterv1.MachineReadinessGate{gpu}
			k.Spec.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{dedicated}
		}
	})
	m := f.growTo(1)[0]
	require.Regexp(t, `^c1-control-[a-z0-9]{5}$`, m.Name)
	for _, o := range partsOf(t, m) {
		require.Equal(t, m.Name, o.GetName(), "%T is named like its Machine", o)
	}
	require.Equal(t, withOwnGates(gpu), m.Spec.ReadinessGates)
	require.Equal(t, []clusterv1.MachineTaint{dedicated}, m.Spec.Taints)

	mw := watchMachines(t, f.ns)
	bootstrapping := clusterv1.MachineTaint{Key: "bootstrapping", Effect: corev1.TaintEffectNoExecute, Propagation: clusterv1.MachineTaintPropagationOnInitialization}
	negative := clusterv1.MachineReadinessGate{ConditionType: "DiskPressure", Polarity: clusterv1.NegativePolarityCondition}
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.MachineTemplate.Spec.ReadinessGates = []clusterv1.MachineReadinessGate{negative}
		k.Spec.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{dedicated, bootstrapping}
		k.Spec.MachineNaming.Template = "{{ .kubeadmControlPlane.name }}-renamed-{{ .random }}"
	})
	envtest.WaitFor(t, timeout, "the new readiness gates and taints on the Machine", func() (bool, error) {
		cur := partsOf(t, m)[0].(*clusterv1.Machine)
		if !slices.Equal(cur.Spec.ReadinessGates, withOwnGates(negative)) ||
			!slices.Equal(cur.Spec.Taints, []clusterv1.MachineTaint{dedicated, bootstrapping}) {
			return false, fmt.Errorf("gates %v taints %v", cur.Spec.ReadinessGates, cur.Spec.Taints)
		}
		return true, nil
	})
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.MachineTemplate.Spec.ReadinessGates = nil
		k.Spec.MachineTemplate.Spec.Taints = nil
	})
	envtest.WaitFor(t, timeout, "the template's readiness gates and taints removed from the Machine", func() (bool, error) {
		cur := partsOf(t, m)[0].(*clusterv1.Machine)
		if !slices.Equal(cur.Spec.ReadinessGates, withOwnGates()) || len(cur.Spec.Taints) > 0 {
			return false, fmt.Errorf("gates %v taints %v", cur.Spec.ReadinessGates, cur.Spec.Taints)
		}
		return true, nil
	})
	ms := f.machines()
	require.Len(t, ms, 1)
	require.Equal(t, m.Name, ms[0].Name, "a naming change renames nothing")
	total, deleting := mw.maxima()
	require.Equal(t, 0, deleting, "gates, taints and naming roll nothing out")
	require.LessOrEqual(t, total, 1)
}

// withOwnGates is what a Machine of a KubeadmControlPlane with stacked etcd is gated on: the
// controller's health conditions, then the template's gates.
func withOwnGates(template ...clusterv1.MachineReadinessGate) []clusterv1.MachineReadinessGate {
	var out []clusterv1.MachineReadinessGate
	for _, t := range []string{"APIServerPodHealthy", "ControllerManagerPodHealthy", "SchedulerPodHealthy", "EtcdPodHealthy", "EtcdMemberHealthy"} {
		out = append(out, clusterv1.MachineReadinessGate{ConditionType: t})
	}
	return append(out, template...)
}
