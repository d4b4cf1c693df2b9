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

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	"capstan.dev/contracts/conversion"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

var dockerMachinePoolConversion = conversion.KindConversion[DockerMachinePoolSpec, DockerMachinePoolStatus, infrav1.DockerMachinePoolSpec, infrav1.DockerMachinePoolStatus]{
	SpecUp:     specUpOnly(dockerMachinePoolSpecUp),
	SpecDown:   specDownOnly(dockerMachinePoolSpecDown),
	StatusUp:   dockerMachinePoolStatusUp,
	StatusDown: dockerMachinePoolStatusDown,
	Derived:    dockerMachinePoolConditions,
}

// ConvertDockerMachinePoolToHub converts a v1beta1 DockerMachinePool to v1beta2.
func ConvertDockerMachinePoolToHub(_ context.Context, src *DockerMachinePool, dst *infrav1.DockerMachinePool) error {
	return dockerMachinePoolConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToDockerMachinePool converts a v1beta2 DockerMachinePool to v1beta1.
func ConvertHubToDockerMachinePool(ctx context.Context, src *infrav1.DockerMachinePool, dst *DockerMachinePool, resolver conversion.APIVersionResolver) error {
	return dockerMachinePoolConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

var dockerMachinePoolTemplateConversion = conversion.KindConversion[DockerMachinePoolTemplateSpec, noStatus, infrav1.DockerMachinePoolTemplateSpec, noStatus]{
	SpecUp: specUpOnly(func(in *DockerMachinePoolTemplateSpec, restored *infrav1.DockerMachinePoolTemplateSpec) infrav1.DockerMachinePoolTemplateSpec {
		return infrav1.DockerMachinePoolTemplateSpec{Template: infrav1.DockerMachinePoolTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertObjectMetaToHub(in.Template.ObjectMeta),
			Spec:       dockerMachinePoolSpecUp(&in.Template.Spec, &restored.Template.Spec),
		}}
	}),
	SpecDown: specDownOnly(func(in *infrav1.DockerMachinePoolTemplateSpec) DockerMachinePoolTemplateSpec {
		return DockerMachinePoolTemplateSpec{Template: DockerMachinePoolTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertHubToObjectMeta(in.Template.ObjectMeta),
			Spec:       dockerMachinePoolSpecDown(&in.Template.Spec),
		}}
	}),
	StatusUp:   noStatusUp,
	StatusDown: noStatusDown,
}

// ConvertDockerMachinePoolTemplateToHub converts a v1beta1 DockerMachinePoolTemplate to v1beta2.
func ConvertDockerMachinePoolTemplateToHub(_ context.Context, src *DockerMachinePoolTemplate, dst *infrav1.DockerMachinePoolTemplate) error {
	return dockerMachinePoolTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToDockerMachinePoolTemplate converts a v1beta2 DockerMachinePoolTemplate to v1beta1.
func ConvertHubToDockerMachinePoolTemplate(ctx context.Context, src *infrav1.DockerMachinePoolTemplate, dst *DockerMachinePoolTemplate, resolver conversion.APIVersionResolver) error {
	return dockerMachinePoolTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

func dockerMachinePoolSpecUp(in *DockerMachinePoolSpec, restored *infrav1.DockerMachinePoolSpec) infrav1.DockerMachinePoolSpec {
	return infrav1.DockerMachinePoolSpec{
		Template: infrav1.DockerMachinePoolMachineTemplate{
			CustomImage:   in.Template.CustomImage,
			PreLoadImages: append([]string(nil), in.Template.PreLoadImages...),
			ExtraMounts:   mountsUp(in.Template.ExtraMounts, restored.Template.ExtraMounts),
		},
		ProviderID:     in.ProviderID,
		ProviderIDList: append([]string(nil), in.ProviderIDList...),
	}
}

func dockerMachinePoolSpecDown(in *infrav1.DockerMachinePoolSpec) DockerMachinePoolSpec {
	return DockerMachinePoolSpec{
		Template: DockerMachinePoolMachineTemplate{
			CustomImage:   in.Template.CustomImage,
			PreLoadImages: append([]string(nil), in.Template.PreLoadImages...),
			ExtraMounts:   mountsDown(in.Template.ExtraMounts),
		},
		ProviderID:     in.ProviderID,
		ProviderIDList: append([]string(nil), in.ProviderIDList...),
	}
}

// dockerMachinePoolStatusUp takes the v1beta2 conditions from the conversion data: v1beta1 has
// no place for them, as upstream.
func dockerMachinePoolStatusUp(in *DockerMachinePoolStatus, restored *infrav1.DockerMachinePoolStatus) infrav1.DockerMachinePoolStatus {
	out := infrav1.DockerMachinePoolStatus{
		Conditions: restored.Conditions,
		Initialization: infrav1.DockerMachinePoolInitializationStatus{
			Provisioned: conversion.BoolIntent(in.Ready, restored.Initialization.Provisioned),
		},
		Replicas:           in.Replicas,
		ObservedGeneration: in.ObservedGeneration,
	}
	for _, i := range in.Instances {
		out.Instances = append(out.Instances, infrav1.DockerMachinePoolInstanceStatus{
			InstanceName: i.InstanceName, ProviderID: conversion.Deref(i.ProviderID), Addresses: i.Addresses.DeepCopy(),
			Bootstrapped: i.Bootstrapped, Ready: i.Ready,
		})
	}
	return out
}

func dockerMachinePoolStatusDown(in *infrav1.DockerMachinePoolStatus) DockerMachinePoolStatus {
	out := DockerMachinePoolStatus{
		Ready:              conversion.Deref(in.Initialization.Provisioned),
		Replicas:           in.Replicas,
		ObservedGeneration: in.ObservedGeneration,
	}
	for _, i := range in.Instances {
		out.Instances = append(out.Instances, DockerMachinePoolInstanceStatus{
			InstanceName: i.InstanceName, ProviderID: conversion.NonZero(i.ProviderID), Addresses: i.Addresses.DeepCopy(),
			Bootstrapped: i.Bootstrapped, Ready: i.Ready,
		})
	}
	return out
}
