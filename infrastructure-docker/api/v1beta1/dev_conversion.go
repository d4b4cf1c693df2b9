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

// The Dev kinds convert by the Docker kinds' rules (as upstream): what differs is only where
// the Docker settings sit (spec.backend.docker).

var devClusterConversion = conversion.KindConversion[DevClusterSpec, DockerClusterStatus, infrav1.DevClusterSpec, infrav1.DockerClusterStatus]{
	SpecUp:     specUpOnly(devClusterSpecUp),
	SpecDown:   specDownOnly(devClusterSpecDown),
	StatusUp:   dockerClusterStatusUp,
	StatusDown: dockerClusterStatusDown,
	Derived:    dockerClusterConditions,
}

// ConvertDevClusterToHub converts a v1beta1 DevCluster to v1beta2.
func ConvertDevClusterToHub(_ context.Context, src *DevCluster, dst *infrav1.DevCluster) error {
	return devClusterConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToDevCluster converts a v1beta2 DevCluster to v1beta1.
func ConvertHubToDevCluster(ctx context.Context, src *infrav1.DevCluster, dst *DevCluster, resolver conversion.APIVersionResolver) error {
	return devClusterConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

var devClusterTemplateConversion = conversion.KindConversion[DevClusterTemplateSpec, noStatus, infrav1.DevClusterTemplateSpec, noStatus]{
	SpecUp: specUpOnly(func(in *DevClusterTemplateSpec, restored *infrav1.DevClusterTemplateSpec) infrav1.DevClusterTemplateSpec {
		return infrav1.DevClusterTemplateSpec{Template: infrav1.DevClusterTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertObjectMetaToHub(in.Template.ObjectMeta),
			Spec:       devClusterSpecUp(&in.Template.Spec, &restored.Template.Spec),
		}}
	}),
	SpecDown: specDownOnly(func(in *infrav1.DevClusterTemplateSpec) DevClusterTemplateSpec {
		return DevClusterTemplateSpec{Template: DevClusterTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertHubToObjectMeta(in.Template.ObjectMeta),
			Spec:       devClusterSpecDown(&in.Template.Spec),
		}}
	}),
	StatusUp:   noStatusUp,
	StatusDown: noStatusDown,
}

// ConvertDevClusterTemplateToHub converts a v1beta1 DevClusterTemplate to v1beta2.
func ConvertDevClusterTemplateToHub(_ context.Context, src *DevClusterTemplate, dst *infrav1.DevClusterTemplate) error {
	return devClusterTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToDevClusterTemplate converts a v1beta2 DevClusterTemplate to v1beta1.
func ConvertHubToDevClusterTemplate(ctx context.Context, src *infrav1.DevClusterTemplate, dst *DevClusterTemplate, resolver conversion.APIVersionResolver) error {
	return devClusterTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

func devClusterSpecUp(in *DevClusterSpec, restored *infrav1.DevClusterSpec) infrav1.DevClusterSpec {
	out := infrav1.DevClusterSpec{ControlPlaneEndpoint: in.ControlPlaneEndpoint}
	if in.Backend.Docker != nil {
		var r infrav1.DockerClusterBackendSpec
		if restored.Backend.Docker != nil {
			r = *restored.Backend.Docker
		}
		b := dockerClusterBackendUp(in.Backend.Docker, &r)
		out.Backend.Docker = &b
	}
	if in.Backend.InMemory != nil {
		out.Backend.InMemory = &infrav1.InMemoryBackendSpec{}
	}
	return out
}

func devClusterSpecDown(in *infrav1.DevClusterSpec) DevClusterSpec {
	out := DevClusterSpec{ControlPlaneEndpoint: in.ControlPlaneEndpoint}
	if in.Backend.Docker != nil {
		b := dockerClusterBackendDown(in.Backend.Docker)
		out.Backend.Docker = &b
	}
	if in.Backend.InMemory != nil {
		out.Backend.InMemory = &InMemoryBackendSpec{}
	}
	return out
}

var devMachineConversion = conversion.KindConversion[DevMachineSpec, DockerMachineStatus, infrav1.DevMachineSpec, infrav1.DockerMachineStatus]{
	SpecUp:     specUpOnly(devMachineSpecUp),
	SpecDown:   specDownOnly(devMachineSpecDown),
	StatusUp:   dockerMachineStatusUp,
	StatusDown: dockerMachineStatusDown,
	Derived:    dockerMachineConditions,
}

// ConvertDevMachineToHub converts a v1beta1 DevMachine to v1beta2.
func ConvertDevMachineToHub(_ context.Context, src *DevMachine, dst *infrav1.DevMachine) error {
	return devMachineConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToDevMachine converts a v1beta2 DevMachine to v1beta1.
func ConvertHubToDevMachine(ctx context.Context, src *infrav1.DevMachine, dst *DevMachine, resolver conversion.APIVersionResolver) error {
	return devMachineConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

var devMachineTemplateConversion = conversion.KindConversion[DevMachineTemplateSpec, noStatus, infrav1.DevMachineTemplateSpec, noStatus]{
	SpecUp: specUpOnly(func(in *DevMachineTemplateSpec, restored *infrav1.DevMachineTemplateSpec) infrav1.DevMachineTemplateSpec {
		return infrav1.DevMachineTemplateSpec{Template: infrav1.DevMachineTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertObjectMetaToHub(in.Template.ObjectMeta),
			Spec:       devMachineSpecUp(&in.Template.Spec, &restored.Template.Spec),
		}}
	}),
	SpecDown: specDownOnly(func(in *infrav1.DevMachineTemplateSpec) DevMachineTemplateSpec {
		return DevMachineTemplateSpec{Template: DevMachineTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertHubToObjectMeta(in.Template.ObjectMeta),
			Spec:       devMachineSpecDown(&in.Template.Spec),
		}}
	}),
	StatusUp:   noStatusUp,
	StatusDown: noStatusDown,
}

// ConvertDevMachineTemplateToHub converts a v1beta1 DevMachineTemplate to v1beta2.
func ConvertDevMachineTemplateToHub(_ context.Context, src *DevMachineTemplate, dst *infrav1.DevMachineTemplate) error {
	return devMachineTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToDevMachineTemplate converts a v1beta2 DevMachineTemplate to v1beta1.
func ConvertHubToDevMachineTemplate(ctx context.Context, src *infrav1.DevMachineTemplate, dst *DevMachineTemplate, resolver conversion.APIVersionResolver) error {
	return devMachineTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

func devMachineSpecUp(in *DevMachineSpec, restored *infrav1.DevMachineSpec) infrav1.DevMachineSpec {
	out := infrav1.DevMachineSpec{ProviderID: conversion.Deref(in.ProviderID)}
	if in.Backend.Docker != nil {
		var r infrav1.DockerMachineBackendSpec
		if restored.Backend.Docker != nil {
			r = *restored.Backend.Docker
		}
		b := dockerMachineBackendUp(in.Backend.Docker, &r)
		out.Backend.Docker = &b
	}
	if in.Backend.InMemory != nil {
		out.Backend.InMemory = &infrav1.InMemoryBackendSpec{}
	}
	return out
}

func devMachineSpecDown(in *infrav1.DevMachineSpec) DevMachineSpec {
	out := DevMachineSpec{ProviderID: conversion.NonZero(in.ProviderID)}
	if in.Backend.Docker != nil {
		b := dockerMachineBackendDown(in.Backend.Docker)
		out.Backend.Docker = &b
	}
	if in.Backend.InMemory != nil {
		out.Backend.InMemory = &InMemoryBackendSpec{}
	}
	return out
}
