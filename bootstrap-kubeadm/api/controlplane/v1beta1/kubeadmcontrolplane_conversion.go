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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

var kubeadmControlPlaneConversion = conversion.KindConversion[KubeadmControlPlaneSpec, KubeadmControlPlaneStatus,
	controlplanev1.KubeadmControlPlaneSpec, controlplanev1.KubeadmControlPlaneStatus]{
	SpecUp:     kcpSpecUp,
	SpecDown:   kcpSpecDown,
	StatusUp:   kcpStatusUp,
	StatusDown: kcpStatusDown,
	Derived: clusterv1beta1.DerivedConditions(func(s *KubeadmControlPlaneStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *controlplanev1.KubeadmControlPlaneStatus) []metav1.Condition { return s.Conditions },
		clusterv1beta1.DerivedCondition{Type: clusterv1beta1.ReadyV1Beta1Condition, From: controlplanev1.KubeadmControlPlaneAvailableCondition},
		clusterv1beta1.DerivedCondition{Type: "Available", From: controlplanev1.KubeadmControlPlaneAvailableCondition},
		clusterv1beta1.DerivedCondition{Type: "CertificatesAvailable", From: controlplanev1.KubeadmControlPlaneCertificatesAvailableCondition},
		clusterv1beta1.DerivedCondition{Type: "MachinesReady", From: controlplanev1.KubeadmControlPlaneMachinesReadyCondition},
		clusterv1beta1.DerivedCondition{Type: "MachinesSpecUpToDate", From: controlplanev1.KubeadmControlPlaneMachinesUpToDateCondition},
		clusterv1beta1.DerivedCondition{Type: "ControlPlaneComponentsHealthy", From: controlplanev1.KubeadmControlPlaneControlPlaneComponentsHealthyCondition},
		clusterv1beta1.DerivedCondition{Type: "EtcdClusterHealthy", From: controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition}),
}

// ConvertKubeadmControlPlaneToHub converts a v1beta1 KubeadmControlPlane to v1beta2.
func ConvertKubeadmControlPlaneToHub(_ context.Context, src *KubeadmControlPlane, dst *controlplanev1.KubeadmControlPlane) error {
	return kubeadmControlPlaneConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToKubeadmControlPlane converts a v1beta2 KubeadmControlPlane to v1beta1; resolver
// names the API version of an infrastructure reference v1beta1 clients did not write themselves.
func ConvertHubToKubeadmControlPlane(ctx context.Context, src *controlplanev1.KubeadmControlPlane, dst *KubeadmControlPlane,
	resolver conversion.APIVersionResolver) error {
	return kubeadmControlPlaneConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

const infraRefPath = "spec.machineTemplate.infrastructureRef"

func kcpSpecUp(in *KubeadmControlPlaneSpec, restored *controlplanev1.KubeadmControlPlaneSpec) (controlplanev1.KubeadmControlPlaneSpec, error) {
	mt := &in.MachineTemplate
	out := controlplanev1.KubeadmControlPlaneSpec{
		Replicas: conversion.Copy(in.Replicas),
		Version:  in.Version,
		MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{
			ObjectMeta: bootstrapv1beta1.TemplateMetaUp(mt.ObjectMeta),
			Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
				ReadinessGates: append([]clusterv1.MachineReadinessGate(nil), mt.ReadinessGates...),
				Deletion:       deletionUp(&mt.MachineTimeouts),
				Taints:         append([]clusterv1.MachineTaint(nil), mt.Taints...),
			},
		},
		KubeadmConfigSpec: bootstrapv1beta1.KubeadmConfigSpecUp(&in.KubeadmConfigSpec, &restored.KubeadmConfigSpec),
		Rollout:           rolloutUp(&in.RolloutFields),
		Remediation:       remediationUp(in.RemediationStrategy, &restored.Remediation),
		MachineNaming:     namingUp(in.MachineNamingStrategy),
	}
	var err error
	out.MachineTemplate.Spec.InfrastructureRef, err = conversion.RefToContract(&mt.InfrastructureRef, infraRefPath)
	return out, err
}

func kcpSpecDown(ctx context.Context, in *controlplanev1.KubeadmControlPlaneSpec, namespace string, stored *KubeadmControlPlaneSpec,
	resolver conversion.APIVersionResolver) (KubeadmControlPlaneSpec, error) {
	if stored == nil {
		stored = &KubeadmControlPlaneSpec{}
	}
	mt := &in.MachineTemplate
	out := KubeadmControlPlaneSpec{
		Replicas: conversion.Copy(in.Replicas),
		Version:  in.Version,
		MachineTemplate: KubeadmControlPlaneMachineTemplate{
			ObjectMeta:      bootstrapv1beta1.TemplateMetaDown(mt.ObjectMeta),
			ReadinessGates:  append([]clusterv1.MachineReadinessGate(nil), mt.Spec.ReadinessGates...),
			MachineTimeouts: timeoutsDown(&mt.Spec.Deletion, mt.Spec.Taints, &stored.MachineTemplate.MachineTimeouts),
		},
		KubeadmConfigSpec: bootstrapv1beta1.KubeadmConfigSpecDown(&in.KubeadmConfigSpec, &stored.KubeadmConfigSpec),
		RolloutFields:     rolloutFieldsDown(&in.Rollout, &in.Remediation, &in.MachineNaming, &stored.RolloutFields),
	}
	ref, err := conversion.RefFromContract(ctx, mt.Spec.InfrastructureRef, namespace, &stored.MachineTemplate.InfrastructureRef, resolver, infraRefPath)
	if ref != nil {
		out.MachineTemplate.InfrastructureRef = *ref
	}
	return out, err
}

func kcpStatusUp(in *KubeadmControlPlaneStatus, restored *controlplanev1.KubeadmControlPlaneStatus) controlplanev1.KubeadmControlPlaneStatus {
	out := controlplanev1.KubeadmControlPlaneStatus{
		Initialization: controlplanev1.KubeadmControlPlaneInitializationStatus{
			ControlPlaneInitialized: conversion.BoolIntent(in.Initialized, restored.Initialization.ControlPlaneInitialized),
		},
		Selector:           in.Selector,
		Replicas:           conversion.Int32Intent(in.Replicas, restored.Replicas),
		Version:            conversion.Deref(in.Version),
		ObservedGeneration: in.ObservedGeneration,
		LastRemediation:    lastRemediationUp(in.LastRemediation, &restored.LastRemediation),
	}
	if v := in.V1Beta2; v != nil {
		out.Conditions = v.Conditions
		out.ReadyReplicas, out.AvailableReplicas, out.UpToDateReplicas = conversion.Copy(v.ReadyReplicas), conversion.Copy(v.AvailableReplicas), conversion.Copy(v.UpToDateReplicas)
	}
	return out
}

// kcpStatusDown derives the legacy counters from the v1beta2 ones (Capstan keeps no deprecated
// status); ready is readyReplicas > 0, as upstream computes it.
func kcpStatusDown(in *controlplanev1.KubeadmControlPlaneStatus) KubeadmControlPlaneStatus {
	out := KubeadmControlPlaneStatus{
		Selector:            in.Selector,
		Replicas:            conversion.Deref(in.Replicas),
		Version:             conversion.NonZero(in.Version),
		UpdatedReplicas:     conversion.Deref(in.UpToDateReplicas),
		ReadyReplicas:       conversion.Deref(in.ReadyReplicas),
		UnavailableReplicas: max(0, conversion.Deref(in.Replicas)-conversion.Deref(in.AvailableReplicas)),
		Initialized:         conversion.Deref(in.Initialization.ControlPlaneInitialized),
		ObservedGeneration:  in.ObservedGeneration,
		LastRemediation:     lastRemediationDown(&in.LastRemediation),
	}
	out.Ready = out.ReadyReplicas > 0
	if len(in.Conditions) > 0 || in.ReadyReplicas != nil || in.AvailableReplicas != nil || in.UpToDateReplicas != nil {
		out.V1Beta2 = &KubeadmControlPlaneV1Beta2Status{Conditions: in.Conditions,
			ReadyReplicas: conversion.Copy(in.ReadyReplicas), AvailableReplicas: conversion.Copy(in.AvailableReplicas), UpToDateReplicas: conversion.Copy(in.UpToDateReplicas)}
	}
	return out
}

// lastRemediationUp maps upstream's v1beta1 record (timestamp, a plain retryCount) onto v1beta2's
// (time, a *int32 retryCount that the controller always sets): a retryCount of 0 stays unset only
// where the recorded v1beta2 status had a record without one.
func lastRemediationUp(in *LastRemediationStatus, restored *controlplanev1.LastRemediationStatus) controlplanev1.LastRemediationStatus {
	if in == nil {
		return controlplanev1.LastRemediationStatus{}
	}
	retry := in.RetryCount
	out := controlplanev1.LastRemediationStatus{Machine: in.Machine, Time: in.Timestamp, RetryCount: &retry}
	if in.RetryCount == 0 && restored.RetryCount == nil && !equality.Semantic.DeepEqual(*restored, controlplanev1.LastRemediationStatus{}) {
		out.RetryCount = nil
	}
	return out
}

func lastRemediationDown(in *controlplanev1.LastRemediationStatus) *LastRemediationStatus {
	if equality.Semantic.DeepEqual(*in, controlplanev1.LastRemediationStatus{}) {
		return nil
	}
	return &LastRemediationStatus{Machine: in.Machine, Timestamp: in.Time, RetryCount: conversion.Deref(in.RetryCount)}
}

func deletionUp(in *MachineTimeouts) controlplanev1.KubeadmControlPlaneMachineTemplateDeletionSpec {
	return controlplanev1.KubeadmControlPlaneMachineTemplateDeletionSpec{
		NodeDrainTimeoutSeconds:        conversion.DurationToSeconds(in.NodeDrainTimeout),
		NodeVolumeDetachTimeoutSeconds: conversion.DurationToSeconds(in.NodeVolumeDetachTimeout),
		NodeDeletionTimeoutSeconds:     conversion.DurationToSeconds(in.NodeDeletionTimeout),
	}
}

func timeoutsDown(in *controlplanev1.KubeadmControlPlaneMachineTemplateDeletionSpec, taints []clusterv1.MachineTaint, stored *MachineTimeouts) MachineTimeouts {
	return MachineTimeouts{
		NodeDrainTimeout:        conversion.SecondsToDuration(in.NodeDrainTimeoutSeconds, stored.NodeDrainTimeout),
		NodeVolumeDetachTimeout: conversion.SecondsToDuration(in.NodeVolumeDetachTimeoutSeconds, stored.NodeVolumeDetachTimeout),
		NodeDeletionTimeout:     conversion.SecondsToDuration(in.NodeDeletionTimeoutSeconds, stored.NodeDeletionTimeout),
		Taints:                  append([]clusterv1.MachineTaint(nil), taints...),
	}
}

func rolloutUp(in *RolloutFields) controlplanev1.KubeadmControlPlaneRolloutSpec {
	out := controlplanev1.KubeadmControlPlaneRolloutSpec{After: conversion.TimeFromPtr(in.RolloutAfter)}
	if b := in.RolloutBefore; b != nil {
		out.Before.CertificatesExpiryDays = conversion.Deref(b.CertificatesExpiryDays)
	}
	if s := in.RolloutStrategy; s != nil {
		out.Strategy.Type = s.Type
		if s.RollingUpdate != nil {
			out.Strategy.RollingUpdate.MaxSurge = conversion.Copy(s.RollingUpdate.MaxSurge)
		}
	}
	return out
}

// remediationUp maps the remediation strategy; a zero retryPeriod is unset unless restored says 0.
func remediationUp(in *RemediationStrategy, restored *controlplanev1.KubeadmControlPlaneRemediationSpec) controlplanev1.KubeadmControlPlaneRemediationSpec {
	r := conversion.Deref(in)
	return controlplanev1.KubeadmControlPlaneRemediationSpec{
		MaxRetry:                conversion.Copy(r.MaxRetry),
		RetryPeriodSeconds:      conversion.Int32Intent(conversion.Deref(conversion.DurationToSeconds(&r.RetryPeriod)), restored.RetryPeriodSeconds),
		MinHealthyPeriodSeconds: conversion.DurationToSeconds(r.MinHealthyPeriod),
	}
}

func namingUp(in *MachineNamingStrategy) controlplanev1.MachineNamingSpec {
	return controlplanev1.MachineNamingSpec{Template: conversion.Deref(in).Template}
}

func rolloutFieldsDown(rollout *controlplanev1.KubeadmControlPlaneRolloutSpec, remediation *controlplanev1.KubeadmControlPlaneRemediationSpec,
	naming *controlplanev1.MachineNamingSpec, stored *RolloutFields) RolloutFields {
	out := RolloutFields{RolloutAfter: conversion.TimeToPtr(rollout.After)}
	if days := rollout.Before.CertificatesExpiryDays; days != 0 {
		out.RolloutBefore = &RolloutBefore{CertificatesExpiryDays: &days}
	}
	if s := rollout.Strategy; s.Type != "" || s.RollingUpdate.MaxSurge != nil {
		out.RolloutStrategy = &RolloutStrategy{Type: s.Type}
		if s.RollingUpdate.MaxSurge != nil {
			out.RolloutStrategy.RollingUpdate = &RollingUpdate{MaxSurge: conversion.Copy(s.RollingUpdate.MaxSurge)}
		}
	}
	if r := remediation; r.MaxRetry != nil || r.RetryPeriodSeconds != nil || r.MinHealthyPeriodSeconds != nil {
		storedR := conversion.Deref(stored.RemediationStrategy)
		out.RemediationStrategy = &RemediationStrategy{
			MaxRetry:         conversion.Copy(r.MaxRetry),
			RetryPeriod:      conversion.Deref(conversion.SecondsToDuration(r.RetryPeriodSeconds, &storedR.RetryPeriod)),
			MinHealthyPeriod: conversion.SecondsToDuration(r.MinHealthyPeriodSeconds, storedR.MinHealthyPeriod),
		}
	}
	if naming.Template != "" {
		out.MachineNamingStrategy = &MachineNamingStrategy{Template: naming.Template}
	}
	return out
}
