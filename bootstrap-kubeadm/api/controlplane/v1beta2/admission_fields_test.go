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

package v1beta2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// kcpWith returns a minimal KubeadmControlPlane changed by mutate.
func kcpWith(ns string, mutate func(*controlplanev1.KubeadmControlPlaneSpec)) *controlplanev1.KubeadmControlPlane {
	kcp := newKubeadmControlPlane(ns)
	mutate(&kcp.Spec)
	return kcp
}

var externalEtcd = bootstrapv1.Etcd{External: bootstrapv1.ExternalEtcd{
	Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "/ca", CertFile: "/c", KeyFile: "/k",
}}

// TestAdmission_MachineNamingReadinessGatesAndTaints covers the rules of machineNaming,
// machineTemplate.spec.readinessGates and machineTemplate.spec.taints on the real apiserver.
func TestAdmission_MachineNamingReadinessGatesAndTaints(t *testing.T) {
	tests := []struct {
		name         string
		mutate       func(*controlplanev1.KubeadmControlPlaneSpec)
		wantMessages []string // empty: accepted
	}{
		{"NamingWithoutRandom", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineNaming.Template = "{{ .kubeadmControlPlane.name }}-cp"
		}, []string{"spec.machineNaming.template: Invalid value", `template "{{ .kubeadmControlPlane.name }}-cp" does not contain {{ .random }}: without it every Machine would get the same name`}},
		{"NamingWithUppercase", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineNaming.Template = "CP-{{ .random }}"
		}, []string{"spec.machineNaming.template: Invalid value", `template "CP-{{ .random }}" does not give valid Machine names`}},
		{"NamingWithUnderscore", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineNaming.Template = "{{ .cluster.name }}_{{ .random }}"
		}, []string{"does not give valid Machine names"}},
		{"NamingWithEveryVariable", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineNaming.Template = "{{ .cluster.name }}-{{ .kubeadmControlPlane.name }}-{{ .random }}"
		}, nil},
		{"NamingWithoutSpacesInsideTheBraces", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineNaming.Template = "{{.kubeadmControlPlane.name}}.{{ .random }}"
		}, nil},
		{"ReadinessGateTwice", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineTemplate.Spec.ReadinessGates = []clusterv1.MachineReadinessGate{{ConditionType: "GPUReady"}, {ConditionType: "GPUReady"}}
		}, []string{"spec.machineTemplate.spec.readinessGates[1]: Duplicate value"}},
		{"TaintWithoutPropagation", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{{Key: "a", Effect: corev1.TaintEffectNoSchedule}}
		}, []string{"spec.machineTemplate.spec.taints[0].propagation: Required value"}},
		{"TaintWithUnknownEffect", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{{Key: "a", Effect: "NoJoin", Propagation: clusterv1.MachineTaintPropagationAlways}}
		}, []string{`spec.machineTemplate.spec.taints[0].effect: Unsupported value: "NoJoin"`}},
		{"TaintKeyNameTooLong", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{{Key: "example.com/" + strings.Repeat("a", 64), Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}}
		}, []string{"spec.machineTemplate.spec.taints[0].key: Invalid value", "is too long: the name after the optional \"prefix/\" may have at most 63 characters"}},
		{"TaintTwiceWithTheSameKeyAndEffect", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			t := clusterv1.MachineTaint{Key: "a", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}
			s.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{t, t}
		}, []string{"spec.machineTemplate.spec.taints[1]: Duplicate value"}},
		{"TaintSameKeyOtherEffect", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.MachineTemplate.Spec.Taints = []clusterv1.MachineTaint{
				{Key: "a", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways},
				{Key: "a", Effect: corev1.TaintEffectNoExecute, Propagation: clusterv1.MachineTaintPropagationOnInitialization},
			}
		}, nil},
		{"EvenReplicasWithExternalEtcd", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.Replicas = ptr.To[int32](2)
			s.KubeadmConfigSpec.ClusterConfiguration.Etcd = externalEtcd
		}, nil},
		{"EvenReplicasWithLocalEtcdSettings", func(s *controlplanev1.KubeadmControlPlaneSpec) {
			s.Replicas = ptr.To[int32](4)
			s.KubeadmConfigSpec.ClusterConfiguration.Etcd.Local.DataDir = "/var/lib/etcd"
		}, []string{"spec.replicas: Invalid value", evenReplicasMessage}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := kcpWith(env.CreateNamespace(t, "admission-kcp-fields"), tt.mutate)
			if len(tt.wantMessages) == 0 {
				require.NoError(t, env.Client.Create(context.Background(), obj))
				return
			}
			env.RequireInvalid(t, obj, tt.wantMessages...)
		})
	}
}

// TestAdmission_CACertificateValidityCannotChange: the CAs were generated with the validity the
// cluster was created with; a change would not reach them.
func TestAdmission_CACertificateValidityCannotChange(t *testing.T) {
	ctx := context.Background()
	for name, update := range map[string]func(*bootstrapv1.ClusterConfiguration){
		"Changed": func(cc *bootstrapv1.ClusterConfiguration) { cc.CACertificateValidityPeriodDays = 7300 },
		"Removed": func(cc *bootstrapv1.ClusterConfiguration) { cc.CACertificateValidityPeriodDays = 0 },
	} {
		t.Run(name, func(t *testing.T) {
			kcp := kcpWith(env.CreateNamespace(t, "admission-ca-validity"), func(s *controlplanev1.KubeadmControlPlaneSpec) {
				s.KubeadmConfigSpec.ClusterConfiguration.CACertificateValidityPeriodDays = 3650
			})
			require.NoError(t, env.Client.Create(ctx, kcp))
			update(&kcp.Spec.KubeadmConfigSpec.ClusterConfiguration)
			err := env.Client.Update(ctx, kcp)
			require.Error(t, err, "the API server accepted the change")
			require.Contains(t, err.Error(), "spec.kubeadmConfigSpec.clusterConfiguration.caCertificateValidityPeriodDays: Invalid value")
			require.Contains(t, err.Error(), "caCertificateValidityPeriodDays cannot be changed")
		})
	}
}
