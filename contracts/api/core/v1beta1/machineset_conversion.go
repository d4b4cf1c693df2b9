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

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

var machineSetConversion = conversion.KindConversion[MachineSetSpec, MachineSetStatus, clusterv1.MachineSetSpec, clusterv1.MachineSetStatus]{
	SpecUp:     machineSetSpecUp,
	SpecDown:   machineSetSpecDown,
	StatusUp:   machineSetStatusUp,
	StatusDown: machineSetStatusDown,
	Derived: DerivedConditions(func(s *MachineSetStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.MachineSetStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: ReadyV1Beta1Condition, From: clusterv1.MachineSetMachinesReadyCondition},
		DerivedCondition{Type: "MachinesReady", From: clusterv1.MachineSetMachinesReadyCondition}),
}

// ConvertMachineSetToHub converts a v1beta1 MachineSet to v1beta2.
func ConvertMachineSetToHub(_ context.Context, src *MachineSet, dst *clusterv1.MachineSet) error {
	return machineSetConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToMachineSet converts a v1beta2 MachineSet to v1beta1; resolver names the API version of
// references that v1beta1 clients did not write themselves.
func ConvertHubToMachineSet(ctx context.Context, src *clusterv1.MachineSet, dst *MachineSet, resolver conversion.APIVersionResolver) error {
	return machineSetConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func machineSetSpecUp(in *MachineSetSpec, restored *clusterv1.MachineSetSpec) (clusterv1.MachineSetSpec, error) {
	template, err := machineTemplateUp(&in.Template, &restored.Template)
	template.Spec.MinReadySeconds = conversion.Int32Intent(in.MinReadySeconds, restored.Template.Spec.MinReadySeconds)
	out := clusterv1.MachineSetSpec{
		ClusterName: in.ClusterName,
		Replicas:    conversion.Copy(in.Replicas),
		Selector:    selectorUp(in.Selector),
		Template:    template,
		Deletion:    clusterv1.MachineSetDeletionSpec{Order: clusterv1.MachineSetDeletionOrder(in.DeletePolicy)},
	}
	if in.MachineNamingStrategy != nil {
		out.MachineNaming.Template = in.MachineNamingStrategy.Template
	}
	return out, err
}

func machineSetSpecDown(ctx context.Context, in *clusterv1.MachineSetSpec, namespace string, stored *MachineSetSpec,
	resolver conversion.APIVersionResolver) (MachineSetSpec, error) {
	var storedTemplate *MachineTemplateSpec
	if stored != nil {
		storedTemplate = &stored.Template
	}
	template, err := machineTemplateDown(ctx, &in.Template, namespace, storedTemplate, resolver)
	out := MachineSetSpec{
		ClusterName:     in.ClusterName,
		Replicas:        conversion.Copy(in.Replicas),
		MinReadySeconds: conversion.Deref(in.Template.Spec.MinReadySeconds),
		DeletePolicy:    string(in.Deletion.Order),
		Selector:        selectorDown(in.Selector),
		Template:        template,
	}
	if in.MachineNaming.Template != "" {
		out.MachineNamingStrategy = &MachineNamingStrategy{Template: in.MachineNaming.Template}
	}
	return out, err
}

func machineSetStatusUp(in *MachineSetStatus, restored *clusterv1.MachineSetStatus) clusterv1.MachineSetStatus {
	out := clusterv1.MachineSetStatus{
		Selector:           in.Selector,
		Replicas:           conversion.Int32Intent(in.Replicas, restored.Replicas),
		ObservedGeneration: in.ObservedGeneration,
	}
	if v := in.V1Beta2; v != nil {
		out.Conditions = v.Conditions
		out.ReadyReplicas, out.AvailableReplicas, out.UpToDateReplicas = conversion.Copy(v.ReadyReplicas), conversion.Copy(v.AvailableReplicas), conversion.Copy(v.UpToDateReplicas)
	}
	return out
}

func machineSetStatusDown(in *clusterv1.MachineSetStatus) MachineSetStatus {
	out := MachineSetStatus{
		Selector:             in.Selector,
		Replicas:             conversion.Deref(in.Replicas),
		FullyLabeledReplicas: conversion.Deref(in.Replicas),
		ReadyReplicas:        conversion.Deref(in.ReadyReplicas),
		AvailableReplicas:    conversion.Deref(in.AvailableReplicas),
		ObservedGeneration:   in.ObservedGeneration,
	}
	c := replicaCounters{ready: in.ReadyReplicas, available: in.AvailableReplicas, upToDate: in.UpToDateReplicas}
	if !v1beta2StatusEmpty(in.Conditions, c) {
		out.V1Beta2 = &MachineSetV1Beta2Status{Conditions: in.Conditions, ReadyReplicas: conversion.Copy(c.ready), AvailableReplicas: conversion.Copy(c.available), UpToDateReplicas: conversion.Copy(c.upToDate)}
	}
	return out
}
