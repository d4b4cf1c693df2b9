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

var dockerMachineConversion = conversion.KindConversion[DockerMachineSpec, DockerMachineStatus, infrav1.DockerMachineSpec, infrav1.DockerMachineStatus]{
	SpecUp:     specUpOnly(dockerMachineSpecUp),
	SpecDown:   specDownOnly(dockerMachineSpecDown),
	StatusUp:   dockerMachineStatusUp,
	StatusDown: dockerMachineStatusDown,
	Derived:    dockerMachineConditions,
}

// ConvertDockerMachineToHub converts a v1beta1 DockerMachine to v1beta2.
func ConvertDockerMachineToHub(_ context.Context, src *DockerMachine, dst *infrav1.DockerMachine) error {
	return dockerMachineConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToDockerMachine converts a v1beta2 DockerMachine to v1beta1.
func ConvertHubToDockerMachine(ctx context.Context, src *infrav1.DockerMachine, dst *DockerMachine, resolver conversion.APIVersionResolver) error {
	return dockerMachineConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

var dockerMachineTemplateConversion = conversion.KindConversion[DockerMachineTemplateSpec, noStatus, infrav1.DockerMachineTemplateSpec, noStatus]{
	SpecUp: specUpOnly(func(in *DockerMachineTemplateSpec, restored *infrav1.DockerMachineTemplateSpec) infrav1.DockerMachineTemplateSpec {
		return infrav1.DockerMachineTemplateSpec{Template: infrav1.DockerMachineTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertObjectMetaToHub(in.Template.ObjectMeta),
			Spec:       dockerMachineSpecUp(&in.Template.Spec, &restored.Template.Spec),
		}}
	}),
	SpecDown: specDownOnly(func(in *infrav1.DockerMachineTemplateSpec) DockerMachineTemplateSpec {
		return DockerMachineTemplateSpec{Template: DockerMachineTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertHubToObjectMeta(in.Template.ObjectMeta),
			Spec:       dockerMachineSpecDown(&in.Template.Spec),
		}}
	}),
	StatusUp:   noStatusUp,
	StatusDown: noStatusDown,
}

// ConvertDockerMachineTemplateToHub converts a v1beta1 DockerMachineTemplate to v1beta2.
func ConvertDockerMachineTemplateToHub(_ context.Context, src *DockerMachineTemplate, dst *infrav1.DockerMachineTemplate) error {
	return dockerMachineTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToDockerMachineTemplate converts a v1beta2 DockerMachineTemplate to v1beta1.
func ConvertHubToDockerMachineTemplate(ctx context.Context, src *infrav1.DockerMachineTemplate, dst *DockerMachineTemplate, resolver conversion.APIVersionResolver) error {
	return dockerMachineTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

func dockerMachineSpecUp(in *DockerMachineSpec, restored *infrav1.DockerMachineSpec) infrav1.DockerMachineSpec {
	return infrav1.DockerMachineSpec{
		ProviderID:               conversion.Deref(in.ProviderID),
		DockerMachineBackendSpec: dockerMachineBackendUp(&in.DockerMachineBackendSpec, &restored.DockerMachineBackendSpec),
	}
}

func dockerMachineSpecDown(in *infrav1.DockerMachineSpec) DockerMachineSpec {
	return DockerMachineSpec{
		ProviderID:               conversion.NonZero(in.ProviderID),
		DockerMachineBackendSpec: dockerMachineBackendDown(&in.DockerMachineBackendSpec),
	}
}

// dockerMachineBackendUp drops the deprecated bootstrapped flag (no v1beta2 home; the v1beta1
// spec recorded on the object keeps it).
func dockerMachineBackendUp(in *DockerMachineBackendSpec, restored *infrav1.DockerMachineBackendSpec) infrav1.DockerMachineBackendSpec {
	return infrav1.DockerMachineBackendSpec{
		CustomImage:      in.CustomImage,
		PreLoadImages:    append([]string(nil), in.PreLoadImages...),
		ExtraMounts:      mountsUp(in.ExtraMounts, restored.ExtraMounts),
		BootstrapTimeout: in.BootstrapTimeout.DeepCopy(),
	}
}

func dockerMachineBackendDown(in *infrav1.DockerMachineBackendSpec) DockerMachineBackendSpec {
	return DockerMachineBackendSpec{
		CustomImage:      in.CustomImage,
		PreLoadImages:    append([]string(nil), in.PreLoadImages...),
		ExtraMounts:      mountsDown(in.ExtraMounts),
		BootstrapTimeout: in.BootstrapTimeout.DeepCopy(),
	}
}

// mountsUp maps readOnly false to unset unless the recorded v1beta2 mount at the same place
// said false.
func mountsUp(in []Mount, restored []infrav1.Mount) []infrav1.Mount {
	var out []infrav1.Mount
	for i, m := range in {
		var readOnly *bool
		if i < len(restored) && restored[i].ContainerPath == m.ContainerPath {
			readOnly = restored[i].ReadOnly
		}
		out = append(out, infrav1.Mount{ContainerPath: m.ContainerPath, HostPath: m.HostPath, ReadOnly: conversion.BoolIntent(m.ReadOnly, readOnly)})
	}
	return out
}

func mountsDown(in []infrav1.Mount) []Mount {
	var out []Mount
	for _, m := range in {
		out = append(out, Mount{ContainerPath: m.ContainerPath, HostPath: m.HostPath, ReadOnly: conversion.Deref(m.ReadOnly)})
	}
	return out
}

func dockerMachineStatusUp(in *DockerMachineStatus, restored *infrav1.DockerMachineStatus) infrav1.DockerMachineStatus {
	out := infrav1.DockerMachineStatus{
		Initialization: infrav1.DockerMachineInitializationStatus{
			Provisioned: conversion.BoolIntent(in.Ready, restored.Initialization.Provisioned),
		},
		Addresses:     in.Addresses.DeepCopy(),
		FailureDomain: restored.FailureDomain, // v1beta2 only, as upstream
	}
	if in.V1Beta2 != nil {
		out.Conditions = in.V1Beta2.Conditions
	}
	return out
}

func dockerMachineStatusDown(in *infrav1.DockerMachineStatus) DockerMachineStatus {
	return DockerMachineStatus{
		Ready:     conversion.Deref(in.Initialization.Provisioned),
		Addresses: in.Addresses.DeepCopy(),
		V1Beta2:   v1beta2Status(in.Conditions),
	}
}
