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

var machineDeploymentConversion = conversion.KindConversion[MachineDeploymentSpec, MachineDeploymentStatus, clusterv1.MachineDeploymentSpec, clusterv1.MachineDeploymentStatus]{
	SpecUp:     machineDeploymentSpecUp,
	SpecDown:   machineDeploymentSpecDown,
	StatusUp:   machineDeploymentStatusUp,
	StatusDown: machineDeploymentStatusDown,
	Derived: DerivedConditions(func(s *MachineDeploymentStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.MachineDeploymentStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: ReadyV1Beta1Condition, From: clusterv1.MachineDeploymentAvailableCondition},
		DerivedCondition{Type: "Available", From: clusterv1.MachineDeploymentAvailableCondition}),
}

// ConvertMachineDeploymentToHub converts a v1beta1 MachineDeployment to v1beta2.
func ConvertMachineDeploymentToHub(_ context.Context, src *MachineDeployment, dst *clusterv1.MachineDeployment) error {
	return machineDeploymentConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToMachineDeployment converts a v1beta2 MachineDeployment to v1beta1; resolver names the API version of
// references that v1beta1 clients did not write themselves.
func ConvertHubToMachineDeployment(ctx context.Context, src *clusterv1.MachineDeployment, dst *MachineDeployment, resolver conversion.APIVersionResolver) error {
	return machineDeploymentConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func machineDeploymentSpecUp(in *MachineDeploymentSpec, restored *clusterv1.MachineDeploymentSpec) (clusterv1.MachineDeploymentSpec, error) {
	template, err := machineTemplateUp(&in.Template, &restored.Template)
	template.Spec.MinReadySeconds = conversion.Copy(in.MinReadySeconds)
	out := clusterv1.MachineDeploymentSpec{
		ClusterName: in.ClusterName,
		Replicas:    conversion.Copy(in.Replicas),
		Rollout:     clusterv1.MachineDeploymentRolloutSpec{After: conversion.TimeFromPtr(in.RolloutAfter)},
		Selector:    selectorUp(in.Selector),
		Template:    template,
		Paused:      conversion.BoolIntent(in.Paused, restored.Paused),
	}
	if in.MachineNamingStrategy != nil {
		out.MachineNaming.Template = in.MachineNamingStrategy.Template
	}
	if s := in.Strategy; s != nil {
		out.Rollout.Strategy.Type = clusterv1.MachineDeploymentRolloutStrategyType(s.Type)
		if ru := s.RollingUpdate; ru != nil {
			out.Rollout.Strategy.RollingUpdate.MaxUnavailable = conversion.Copy(ru.MaxUnavailable)
			out.Rollout.Strategy.RollingUpdate.MaxSurge = conversion.Copy(ru.MaxSurge)
			out.Deletion.Order = clusterv1.MachineSetDeletionOrder(conversion.Deref(ru.DeletePolicy))
		}
		if s.Remediation != nil {
			out.Remediation.MaxInFlight = conversion.Copy(s.Remediation.MaxInFlight)
		}
	}
	return out, err
}

func machineDeploymentSpecDown(ctx context.Context, in *clusterv1.MachineDeploymentSpec, namespace string, stored *MachineDeploymentSpec,
	resolver conversion.APIVersionResolver) (MachineDeploymentSpec, error) {
	if stored == nil {
		stored = &MachineDeploymentSpec{}
	}
	template, err := machineTemplateDown(ctx, &in.Template, namespace, &stored.Template, resolver)
	out := MachineDeploymentSpec{
		ClusterName:     in.ClusterName,
		Replicas:        conversion.Copy(in.Replicas),
		RolloutAfter:    conversion.TimeToPtr(in.Rollout.After),
		Selector:        selectorDown(in.Selector),
		Template:        template,
		MinReadySeconds: conversion.Copy(in.Template.Spec.MinReadySeconds),
		Paused:          conversion.Deref(in.Paused),
		// v1beta2 has no home for these: they are kept as the v1beta1 client wrote them.
		RevisionHistoryLimit:    conversion.Copy(stored.RevisionHistoryLimit),
		ProgressDeadlineSeconds: conversion.Copy(stored.ProgressDeadlineSeconds),
	}
	if in.MachineNaming.Template != "" {
		out.MachineNamingStrategy = &MachineNamingStrategy{Template: in.MachineNaming.Template}
	}
	out.Strategy = machineDeploymentStrategyDown(in)
	return out, err
}

// machineDeploymentStrategyDown synthesises the v1beta1 strategy stanza only when something
// in it is set (as upstream).
func machineDeploymentStrategyDown(in *clusterv1.MachineDeploymentSpec) *MachineDeploymentStrategy {
	s := in.Rollout.Strategy
	ru := s.RollingUpdate
	if s.Type == "" && ru.MaxSurge == nil && ru.MaxUnavailable == nil && in.Deletion.Order == "" && in.Remediation.MaxInFlight == nil {
		return nil
	}
	out := &MachineDeploymentStrategy{Type: string(s.Type)}
	if ru.MaxSurge != nil || ru.MaxUnavailable != nil || in.Deletion.Order != "" {
		out.RollingUpdate = &MachineRollingUpdateDeployment{
			MaxUnavailable: conversion.Copy(ru.MaxUnavailable), MaxSurge: conversion.Copy(ru.MaxSurge), DeletePolicy: conversion.NonZero(string(in.Deletion.Order)),
		}
	}
	if in.Remediation.MaxInFlight != nil {
		out.Remediation = &RemediationStrategy{MaxInFlight: conversion.Copy(in.Remediation.MaxInFlight)}
	}
	return out
}

func machineDeploymentStatusUp(in *MachineDeploymentStatus, restored *clusterv1.MachineDeploymentStatus) clusterv1.MachineDeploymentStatus {
	out := clusterv1.MachineDeploymentStatus{
		ObservedGeneration: in.ObservedGeneration,
		Selector:           in.Selector,
		Replicas:           conversion.Int32Intent(in.Replicas, restored.Replicas),
		Phase:              in.Phase,
	}
	if v := in.V1Beta2; v != nil {
		out.Conditions = v.Conditions
		out.ReadyReplicas, out.AvailableReplicas, out.UpToDateReplicas = conversion.Copy(v.ReadyReplicas), conversion.Copy(v.AvailableReplicas), conversion.Copy(v.UpToDateReplicas)
	}
	return out
}

func machineDeploymentStatusDown(in *clusterv1.MachineDeploymentStatus) MachineDeploymentStatus {
	out := MachineDeploymentStatus{
		ObservedGeneration:  in.ObservedGeneration,
		Selector:            in.Selector,
		Replicas:            conversion.Deref(in.Replicas),
		UpdatedReplicas:     conversion.Deref(in.UpToDateReplicas),
		ReadyReplicas:       conversion.Deref(in.ReadyReplicas),
		AvailableReplicas:   conversion.Deref(in.AvailableReplicas),
		UnavailableReplicas: unavailable(in.Replicas, in.AvailableReplicas),
		Phase:               in.Phase,
	}
	c := replicaCounters{ready: in.ReadyReplicas, available: in.AvailableReplicas, upToDate: in.UpToDateReplicas}
	if !v1beta2StatusEmpty(in.Conditions, c) {
		out.V1Beta2 = &MachineDeploymentV1Beta2Status{Conditions: in.Conditions, ReadyReplicas: conversion.Copy(c.ready), AvailableReplicas: conversion.Copy(c.available), UpToDateReplicas: conversion.Copy(c.upToDate)}
	}
	return out
}
