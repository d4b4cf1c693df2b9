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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

var machinePoolConversion = conversion.KindConversion[MachinePoolSpec, MachinePoolStatus, clusterv1.MachinePoolSpec, clusterv1.MachinePoolStatus]{
	SpecUp:     machinePoolSpecUp,
	SpecDown:   machinePoolSpecDown,
	StatusUp:   machinePoolStatusUp,
	StatusDown: machinePoolStatusDown,
	Derived: DerivedConditions(func(s *MachinePoolStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.MachinePoolStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: ReadyV1Beta1Condition, From: clusterv1.AvailableCondition},
		DerivedCondition{Type: "BootstrapReady", From: clusterv1.BootstrapConfigReadyCondition},
		DerivedCondition{Type: "InfrastructureReady", From: clusterv1.InfrastructureReadyCondition}),
}

// ConvertMachinePoolToHub converts a v1beta1 MachinePool to v1beta2.
func ConvertMachinePoolToHub(_ context.Context, src *MachinePool, dst *clusterv1.MachinePool) error {
	return machinePoolConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToMachinePool converts a v1beta2 MachinePool to v1beta1; resolver names the API version of
// references that v1beta1 clients did not write themselves.
func ConvertHubToMachinePool(ctx context.Context, src *clusterv1.MachinePool, dst *MachinePool, resolver conversion.APIVersionResolver) error {
	return machinePoolConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func machinePoolSpecUp(in *MachinePoolSpec, restored *clusterv1.MachinePoolSpec) (clusterv1.MachinePoolSpec, error) {
	template, err := machineTemplateUp(&in.Template, &restored.Template)
	template.Spec.MinReadySeconds = conversion.Copy(in.MinReadySeconds)
	return clusterv1.MachinePoolSpec{
		ClusterName:    in.ClusterName,
		Replicas:       conversion.Copy(in.Replicas),
		Template:       template,
		ProviderIDList: append([]string(nil), in.ProviderIDList...),
		FailureDomains: append([]string(nil), in.FailureDomains...),
	}, err
}

func machinePoolSpecDown(ctx context.Context, in *clusterv1.MachinePoolSpec, namespace string, stored *MachinePoolSpec,
	resolver conversion.APIVersionResolver) (MachinePoolSpec, error) {
	var storedTemplate *MachineTemplateSpec
	if stored != nil {
		storedTemplate = &stored.Template
	}
	template, err := machineTemplateDown(ctx, &in.Template, namespace, storedTemplate, resolver)
	return MachinePoolSpec{
		ClusterName:     in.ClusterName,
		Replicas:        conversion.Copy(in.Replicas),
		Template:        template,
		MinReadySeconds: conversion.Copy(in.Template.Spec.MinReadySeconds),
		ProviderIDList:  append([]string(nil), in.ProviderIDList...),
		FailureDomains:  append([]string(nil), in.FailureDomains...),
	}, err
}

func machinePoolStatusUp(in *MachinePoolStatus, restored *clusterv1.MachinePoolStatus) clusterv1.MachinePoolStatus {
	out := clusterv1.MachinePoolStatus{
		Initialization: clusterv1.MachinePoolInitializationStatus{
			InfrastructureProvisioned:  conversion.BoolIntent(in.InfrastructureReady, restored.Initialization.InfrastructureProvisioned),
			BootstrapDataSecretCreated: conversion.BoolIntent(in.BootstrapReady, restored.Initialization.BootstrapDataSecretCreated),
		},
		NodeRefs:           append([]corev1.ObjectReference(nil), in.NodeRefs...),
		Replicas:           conversion.Int32Intent(in.Replicas, restored.Replicas),
		Phase:              in.Phase,
		ObservedGeneration: in.ObservedGeneration,
	}
	if v := in.V1Beta2; v != nil {
		out.Conditions = v.Conditions
		out.ReadyReplicas, out.AvailableReplicas, out.UpToDateReplicas = conversion.Copy(v.ReadyReplicas), conversion.Copy(v.AvailableReplicas), conversion.Copy(v.UpToDateReplicas)
	}
	return out
}

func machinePoolStatusDown(in *clusterv1.MachinePoolStatus) MachinePoolStatus {
	out := MachinePoolStatus{
		NodeRefs:            append([]corev1.ObjectReference(nil), in.NodeRefs...),
		Replicas:            conversion.Deref(in.Replicas),
		ReadyReplicas:       conversion.Deref(in.ReadyReplicas),
		AvailableReplicas:   conversion.Deref(in.AvailableReplicas),
		UnavailableReplicas: unavailable(in.Replicas, in.AvailableReplicas),
		Phase:               in.Phase,
		BootstrapReady:      conversion.Deref(in.Initialization.BootstrapDataSecretCreated),
		InfrastructureReady: conversion.Deref(in.Initialization.InfrastructureProvisioned),
		ObservedGeneration:  in.ObservedGeneration,
	}
	c := replicaCounters{ready: in.ReadyReplicas, available: in.AvailableReplicas, upToDate: in.UpToDateReplicas}
	if !v1beta2StatusEmpty(in.Conditions, c) {
		out.V1Beta2 = &MachinePoolV1Beta2Status{Conditions: in.Conditions, ReadyReplicas: conversion.Copy(c.ready), AvailableReplicas: conversion.Copy(c.available), UpToDateReplicas: conversion.Copy(c.upToDate)}
	}
	return out
}
