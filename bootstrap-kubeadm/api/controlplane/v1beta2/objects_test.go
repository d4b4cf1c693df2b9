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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The builders below return minimal valid objects; tests change one thing to hit one rule.

func newKubeadmControlPlane(ns string) *controlplanev1.KubeadmControlPlane {
	return &controlplanev1.KubeadmControlPlane{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kcp1"},
		Spec: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: ptr.To[int32](3),
			Version:  "v1.37.2",
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{
				Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
					InfrastructureRef: clusterv1.ContractVersionedObjectReference{
						APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevMachineTemplate", Name: "cp",
					},
				},
			},
			// Set explicitly so that a round trip compares like with like; defaults have their own test.
			Rollout: controlplanev1.KubeadmControlPlaneRolloutSpec{Strategy: rollingUpdate(intstr.FromInt32(1))},
		},
	}
}

func newKubeadmControlPlaneTemplate(ns string) *controlplanev1.KubeadmControlPlaneTemplate {
	return &controlplanev1.KubeadmControlPlaneTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kcpt1"},
		Spec: controlplanev1.KubeadmControlPlaneTemplateSpec{
			Template: controlplanev1.KubeadmControlPlaneTemplateResource{
				Spec: controlplanev1.KubeadmControlPlaneTemplateResourceSpec{
					Rollout: controlplanev1.KubeadmControlPlaneRolloutSpec{Strategy: rollingUpdate(intstr.FromInt32(1))},
				},
			},
		},
	}
}

func rollingUpdate(maxSurge intstr.IntOrString) controlplanev1.KubeadmControlPlaneRolloutStrategy {
	return controlplanev1.KubeadmControlPlaneRolloutStrategy{
		Type:          controlplanev1.RollingUpdateStrategyType,
		RollingUpdate: controlplanev1.KubeadmControlPlaneRolloutStrategyRollingUpdate{MaxSurge: &maxSurge},
	}
}

// kubeadmConfigSpec is a representative control plane bootstrap configuration.
func kubeadmConfigSpec() bootstrapv1.KubeadmConfigSpec {
	return bootstrapv1.KubeadmConfigSpec{
		ClusterConfiguration: bootstrapv1.ClusterConfiguration{
			APIServer:    bootstrapv1.APIServer{CertSANs: []string{"localhost", "127.0.0.1"}},
			FeatureGates: map[string]bool{"WaitForAllControlPlaneComponents": true},
		},
		InitConfiguration: bootstrapv1.InitConfiguration{
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				KubeletExtraArgs: []bootstrapv1.Arg{{Name: "eviction-hard", Value: ptr.To("nodefs.available<0%")}},
			},
		},
		JoinConfiguration: bootstrapv1.JoinConfiguration{
			ControlPlane: &bootstrapv1.JoinControlPlane{},
		},
		Files: []bootstrapv1.File{{Path: "/etc/kubernetes/audit.yaml", Content: "rules: []\n"}},
	}
}

// everyField sets every field of a KubeadmControlPlaneSpec.
func everyField(spec *controlplanev1.KubeadmControlPlaneSpec) {
	spec.MachineTemplate.ObjectMeta = clusterv1.ObjectMeta{Labels: map[string]string{"tier": "cp"}, Annotations: map[string]string{"a": "b"}}
	spec.MachineTemplate.Spec.Deletion = controlplanev1.KubeadmControlPlaneMachineTemplateDeletionSpec{
		NodeDrainTimeoutSeconds: ptr.To[int32](60), NodeVolumeDetachTimeoutSeconds: ptr.To[int32](0), NodeDeletionTimeoutSeconds: ptr.To[int32](10),
	}
	spec.KubeadmConfigSpec = kubeadmConfigSpec()
	spec.Rollout = controlplanev1.KubeadmControlPlaneRolloutSpec{
		After:    metav1.NewTime(time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)),
		Strategy: rollingUpdate(intstr.FromInt32(0)),
	}
	spec.Remediation = controlplanev1.KubeadmControlPlaneRemediationSpec{
		MaxRetry: ptr.To[int32](3), RetryPeriodSeconds: ptr.To[int32](300), MinHealthyPeriodSeconds: ptr.To[int32](3600),
	}
	spec.MachineNaming = controlplanev1.MachineNamingSpec{Template: "{{ .cluster.name }}-cp-{{ .random }}"}
	spec.MachineTemplate.Spec.ReadinessGates = []clusterv1.MachineReadinessGate{
		{ConditionType: "example.com/GPUReady"}, {ConditionType: "DiskPressure", Polarity: clusterv1.NegativePolarityCondition},
	}
	spec.MachineTemplate.Spec.Taints = taints()
}

// taints are one taint of each propagation.
func taints() []clusterv1.MachineTaint {
	return []clusterv1.MachineTaint{
		{Key: "example.com/dedicated", Value: "control-plane", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways},
		{Key: "bootstrapping", Effect: corev1.TaintEffectNoExecute, Propagation: clusterv1.MachineTaintPropagationOnInitialization},
	}
}
