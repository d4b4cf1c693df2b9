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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	"capstan.dev/contracts/conversion"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// The v1beta1 conditions upstream's v1beta1 Docker (and Dev) kinds had, shown from the v1beta2
// ones with the same meaning (Capstan keeps no deprecated v1beta1 status).
var (
	dockerClusterConditions = clusterv1beta1.DerivedConditions(func(s *DockerClusterStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *infrav1.DockerClusterStatus) []metav1.Condition { return s.Conditions },
		clusterv1beta1.DerivedCondition{Type: clusterv1beta1.ReadyV1Beta1Condition, From: infrav1.DockerClusterReadyCondition},
		clusterv1beta1.DerivedCondition{Type: "LoadBalancerAvailable", From: infrav1.DockerClusterLoadBalancerAvailableCondition})
	dockerMachineConditions = clusterv1beta1.DerivedConditions(func(s *DockerMachineStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *infrav1.DockerMachineStatus) []metav1.Condition { return s.Conditions },
		clusterv1beta1.DerivedCondition{Type: clusterv1beta1.ReadyV1Beta1Condition, From: infrav1.DockerMachineReadyCondition},
		clusterv1beta1.DerivedCondition{Type: "ContainerProvisioned", From: infrav1.DockerMachineContainerProvisionedCondition},
		clusterv1beta1.DerivedCondition{Type: "BootstrapExecSucceeded", From: infrav1.DockerMachineBootstrapExecSucceededCondition})
	dockerMachinePoolConditions = clusterv1beta1.DerivedConditions(func(s *DockerMachinePoolStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *infrav1.DockerMachinePoolStatus) []metav1.Condition { return s.Conditions },
		clusterv1beta1.DerivedCondition{Type: clusterv1beta1.ReadyV1Beta1Condition, From: infrav1.DockerMachinePoolReadyCondition},
		clusterv1beta1.DerivedCondition{Type: "ReplicasReady", From: infrav1.DockerMachinePoolReplicasReadyCondition})
)

// noStatus stands for the status of a template kind, which has none.
type noStatus struct{}

func noStatusUp(*noStatus, *noStatus) noStatus { return noStatus{} }
func noStatusDown(*noStatus) noStatus          { return noStatus{} }

// specDownOnly adapts a spec conversion that reads nothing but the v1beta2 spec (the Docker
// kinds have no contract references) to conversion.KindConversion.SpecDown.
func specDownOnly[Hub, Spoke any](f func(*Hub) Spoke) func(context.Context, *Hub, string, *Spoke, conversion.APIVersionResolver) (Spoke, error) {
	return func(_ context.Context, in *Hub, _ string, _ *Spoke, _ conversion.APIVersionResolver) (Spoke, error) {
		return f(in), nil
	}
}

// specUpOnly adapts a spec conversion that cannot fail to conversion.KindConversion.SpecUp.
func specUpOnly[Spoke, Hub any](f func(*Spoke, *Hub) Hub) func(*Spoke, *Hub) (Hub, error) {
	return func(in *Spoke, restored *Hub) (Hub, error) { return f(in, restored), nil }
}

var dockerClusterConversion = conversion.KindConversion[DockerClusterSpec, DockerClusterStatus, infrav1.DockerClusterSpec, infrav1.DockerClusterStatus]{
	SpecUp:     specUpOnly(dockerClusterSpecUp),
	SpecDown:   specDownOnly(dockerClusterSpecDown),
	StatusUp:   dockerClusterStatusUp,
	StatusDown: dockerClusterStatusDown,
	Derived:    dockerClusterConditions,
}

// ConvertDockerClusterToHub converts a v1beta1 DockerCluster to v1beta2.
func ConvertDockerClusterToHub(_ context.Context, src *DockerCluster, dst *infrav1.DockerCluster) error {
	return dockerClusterConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToDockerCluster converts a v1beta2 DockerCluster to v1beta1.
func ConvertHubToDockerCluster(ctx context.Context, src *infrav1.DockerCluster, dst *DockerCluster, resolver conversion.APIVersionResolver) error {
	return dockerClusterConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

var dockerClusterTemplateConversion = conversion.KindConversion[DockerClusterTemplateSpec, noStatus, infrav1.DockerClusterTemplateSpec, noStatus]{
	SpecUp: specUpOnly(func(in *DockerClusterTemplateSpec, restored *infrav1.DockerClusterTemplateSpec) infrav1.DockerClusterTemplateSpec {
		return infrav1.DockerClusterTemplateSpec{Template: infrav1.DockerClusterTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertObjectMetaToHub(in.Template.ObjectMeta),
			Spec:       dockerClusterSpecUp(&in.Template.Spec, &restored.Template.Spec),
		}}
	}),
	SpecDown: specDownOnly(func(in *infrav1.DockerClusterTemplateSpec) DockerClusterTemplateSpec {
		return DockerClusterTemplateSpec{Template: DockerClusterTemplateResource{
			ObjectMeta: clusterv1beta1.ConvertHubToObjectMeta(in.Template.ObjectMeta),
			Spec:       dockerClusterSpecDown(&in.Template.Spec),
		}}
	}),
	StatusUp:   noStatusUp,
	StatusDown: noStatusDown,
}

// ConvertDockerClusterTemplateToHub converts a v1beta1 DockerClusterTemplate to v1beta2.
func ConvertDockerClusterTemplateToHub(_ context.Context, src *DockerClusterTemplate, dst *infrav1.DockerClusterTemplate) error {
	return dockerClusterTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToDockerClusterTemplate converts a v1beta2 DockerClusterTemplate to v1beta1.
func ConvertHubToDockerClusterTemplate(ctx context.Context, src *infrav1.DockerClusterTemplate, dst *DockerClusterTemplate, resolver conversion.APIVersionResolver) error {
	return dockerClusterTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

func dockerClusterSpecUp(in *DockerClusterSpec, restored *infrav1.DockerClusterSpec) infrav1.DockerClusterSpec {
	return infrav1.DockerClusterSpec{
		ControlPlaneEndpoint:     in.ControlPlaneEndpoint,
		DockerClusterBackendSpec: dockerClusterBackendUp(&in.DockerClusterBackendSpec, &restored.DockerClusterBackendSpec),
	}
}

func dockerClusterSpecDown(in *infrav1.DockerClusterSpec) DockerClusterSpec {
	return DockerClusterSpec{
		ControlPlaneEndpoint:     in.ControlPlaneEndpoint,
		DockerClusterBackendSpec: dockerClusterBackendDown(&in.DockerClusterBackendSpec),
	}
}

func dockerClusterBackendUp(in *DockerClusterBackendSpec, restored *infrav1.DockerClusterBackendSpec) infrav1.DockerClusterBackendSpec {
	return infrav1.DockerClusterBackendSpec{
		FailureDomains: clusterv1beta1.ConvertFailureDomainsToHub(in.FailureDomains, restored.FailureDomains),
		LoadBalancer: infrav1.DockerLoadBalancer{ImageMeta: infrav1.ImageMeta{
			ImageRepository: in.LoadBalancer.ImageRepository, ImageTag: in.LoadBalancer.ImageTag,
		}},
	}
}

func dockerClusterBackendDown(in *infrav1.DockerClusterBackendSpec) DockerClusterBackendSpec {
	return DockerClusterBackendSpec{
		FailureDomains: clusterv1beta1.ConvertHubToFailureDomains(in.FailureDomains),
		LoadBalancer: DockerLoadBalancer{ImageMeta: ImageMeta{
			ImageRepository: in.LoadBalancer.ImageRepository, ImageTag: in.LoadBalancer.ImageTag,
		}},
	}
}

func dockerClusterStatusUp(in *DockerClusterStatus, restored *infrav1.DockerClusterStatus) infrav1.DockerClusterStatus {
	out := infrav1.DockerClusterStatus{
		Initialization: infrav1.DockerClusterInitializationStatus{
			Provisioned: conversion.BoolIntent(in.Ready, restored.Initialization.Provisioned),
		},
		FailureDomains: clusterv1beta1.ConvertFailureDomainsToHub(in.FailureDomains, restored.FailureDomains),
	}
	if in.V1Beta2 != nil {
		out.Conditions = in.V1Beta2.Conditions
	}
	return out
}

func dockerClusterStatusDown(in *infrav1.DockerClusterStatus) DockerClusterStatus {
	return DockerClusterStatus{
		Ready:          conversion.Deref(in.Initialization.Provisioned),
		FailureDomains: clusterv1beta1.ConvertHubToFailureDomains(in.FailureDomains),
		V1Beta2:        v1beta2Status(in.Conditions),
	}
}

func v1beta2Status(conditions []metav1.Condition) *V1Beta2Status {
	if len(conditions) == 0 {
		return nil
	}
	return &V1Beta2Status{Conditions: conditions}
}
