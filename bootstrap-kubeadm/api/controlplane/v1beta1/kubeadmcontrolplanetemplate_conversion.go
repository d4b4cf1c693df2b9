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

	"k8s.io/apimachinery/pkg/api/equality"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// noStatus is the status of the template kind, which has none.
type noStatus = struct{}

var kubeadmControlPlaneTemplateConversion = conversion.KindConversion[KubeadmControlPlaneTemplateSpec, noStatus,
	controlplanev1.KubeadmControlPlaneTemplateSpec, noStatus]{
	SpecUp: func(in *KubeadmControlPlaneTemplateSpec, restored *controlplanev1.KubeadmControlPlaneTemplateSpec) (controlplanev1.KubeadmControlPlaneTemplateSpec, error) {
		return kcpTemplateSpecUp(in, restored), nil
	},
	SpecDown: func(_ context.Context, in *controlplanev1.KubeadmControlPlaneTemplateSpec, _ string, stored *KubeadmControlPlaneTemplateSpec,
		_ conversion.APIVersionResolver) (KubeadmControlPlaneTemplateSpec, error) {
		return kcpTemplateSpecDown(in, stored), nil
	},
	StatusUp:   func(*noStatus, *noStatus) noStatus { return noStatus{} },
	StatusDown: func(*noStatus) noStatus { return noStatus{} },
}

// ConvertKubeadmControlPlaneTemplateToHub converts a v1beta1 KubeadmControlPlaneTemplate to v1beta2.
func ConvertKubeadmControlPlaneTemplateToHub(_ context.Context, src *KubeadmControlPlaneTemplate, dst *controlplanev1.KubeadmControlPlaneTemplate) error {
	return kubeadmControlPlaneTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToKubeadmControlPlaneTemplate converts a v1beta2 KubeadmControlPlaneTemplate to v1beta1.
func ConvertHubToKubeadmControlPlaneTemplate(ctx context.Context, src *controlplanev1.KubeadmControlPlaneTemplate, dst *KubeadmControlPlaneTemplate,
	resolver conversion.APIVersionResolver) error {
	return kubeadmControlPlaneTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

func kcpTemplateSpecUp(in *KubeadmControlPlaneTemplateSpec, restored *controlplanev1.KubeadmControlPlaneTemplateSpec) controlplanev1.KubeadmControlPlaneTemplateSpec {
	spec, rspec := &in.Template.Spec, &restored.Template.Spec
	out := controlplanev1.KubeadmControlPlaneTemplateResourceSpec{
		KubeadmConfigSpec: bootstrapv1beta1.KubeadmConfigSpecUp(&spec.KubeadmConfigSpec, &rspec.KubeadmConfigSpec),
		Rollout:           templateRolloutUp(&spec.RolloutFields),
		Remediation:       remediationUp(spec.RemediationStrategy, &rspec.Remediation),
		MachineNaming:     namingUp(spec.MachineNamingStrategy),
	}
	if mt := spec.MachineTemplate; mt != nil {
		out.MachineTemplate = controlplanev1.KubeadmControlPlaneTemplateMachineTemplate{
			ObjectMeta: bootstrapv1beta1.TemplateMetaUp(mt.ObjectMeta),
			Spec: controlplanev1.KubeadmControlPlaneTemplateMachineTemplateSpec{
				Deletion: deletionUp(&mt.MachineTimeouts),
				Taints:   append([]clusterv1.MachineTaint(nil), mt.Taints...),
			},
		}
	}
	return controlplanev1.KubeadmControlPlaneTemplateSpec{Template: controlplanev1.KubeadmControlPlaneTemplateResource{
		ObjectMeta: bootstrapv1beta1.TemplateMetaUp(in.Template.ObjectMeta), Spec: out}}
}

// templateRolloutUp maps the rollout settings as rolloutUp does, and gives a rolloutStrategy
// without a type the only type there is, RollingUpdate (as upstream's up-conversion does): the
// v1beta1 template schema never defaulted it, while a KubeadmControlPlane's rolloutStrategy
// always had it defaulted, so v1beta1 templates written as `rolloutStrategy: {rollingUpdate: ...}`
// are common. What the client wrote is still what it reads back (the recorded v1beta1 spec).
func templateRolloutUp(in *RolloutFields) controlplanev1.KubeadmControlPlaneRolloutSpec {
	out := rolloutUp(in)
	if in.RolloutStrategy != nil && out.Strategy.Type == "" {
		out.Strategy.Type = controlplanev1.RollingUpdateStrategyType
	}
	return out
}

func kcpTemplateSpecDown(in *controlplanev1.KubeadmControlPlaneTemplateSpec, stored *KubeadmControlPlaneTemplateSpec) KubeadmControlPlaneTemplateSpec {
	if stored == nil {
		stored = &KubeadmControlPlaneTemplateSpec{}
	}
	spec, sspec := &in.Template.Spec, &stored.Template.Spec
	out := KubeadmControlPlaneTemplateResourceSpec{
		KubeadmConfigSpec: bootstrapv1beta1.KubeadmConfigSpecDown(&spec.KubeadmConfigSpec, &sspec.KubeadmConfigSpec),
		RolloutFields:     rolloutFieldsDown(&spec.Rollout, &spec.Remediation, &spec.MachineNaming, &sspec.RolloutFields),
	}
	mt := KubeadmControlPlaneTemplateMachineTemplate{
		ObjectMeta:      bootstrapv1beta1.TemplateMetaDown(spec.MachineTemplate.ObjectMeta),
		MachineTimeouts: timeoutsDown(&spec.MachineTemplate.Spec.Deletion, spec.MachineTemplate.Spec.Taints, storedTimeouts(sspec.MachineTemplate)),
	}
	if !equality.Semantic.DeepEqual(mt, KubeadmControlPlaneTemplateMachineTemplate{}) {
		out.MachineTemplate = &mt
	}
	return KubeadmControlPlaneTemplateSpec{Template: KubeadmControlPlaneTemplateResource{
		ObjectMeta: bootstrapv1beta1.TemplateMetaDown(in.Template.ObjectMeta), Spec: out}}
}

func storedTimeouts(mt *KubeadmControlPlaneTemplateMachineTemplate) *MachineTimeouts {
	if mt == nil {
		return &MachineTimeouts{}
	}
	return &mt.MachineTimeouts
}
