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

var machineConversion = conversion.KindConversion[MachineSpec, MachineStatus, clusterv1.MachineSpec, clusterv1.MachineStatus]{
	SpecUp: func(in *MachineSpec, restored *clusterv1.MachineSpec) (clusterv1.MachineSpec, error) {
		return machineSpecUp(in, restored, "spec")
	},
	SpecDown: func(ctx context.Context, in *clusterv1.MachineSpec, namespace string, stored *MachineSpec, resolver conversion.APIVersionResolver) (MachineSpec, error) {
		return machineSpecDown(ctx, in, namespace, stored, resolver, "spec")
	},
	StatusUp:   machineStatusUp,
	StatusDown: machineStatusDown,
	Derived: DerivedConditions(func(s *MachineStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.MachineStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: ReadyV1Beta1Condition, From: clusterv1.MachineReadyCondition},
		DerivedCondition{Type: "BootstrapReady", From: clusterv1.MachineBootstrapConfigReadyCondition},
		DerivedCondition{Type: "InfrastructureReady", From: clusterv1.MachineInfrastructureReadyCondition},
		DerivedCondition{Type: "NodeHealthy", From: clusterv1.MachineNodeHealthyCondition},
		DerivedCondition{Type: "HealthCheckSucceeded", From: clusterv1.MachineHealthCheckSucceededCondition},
		DerivedCondition{Type: "OwnerRemediated", From: clusterv1.MachineOwnerRemediatedCondition}),
}

// ConvertMachineToHub converts a v1beta1 Machine to v1beta2.
func ConvertMachineToHub(_ context.Context, src *Machine, dst *clusterv1.Machine) error {
	return machineConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToMachine converts a v1beta2 Machine to v1beta1; resolver names the API version of
// references that v1beta1 clients did not write themselves.
func ConvertHubToMachine(ctx context.Context, src *clusterv1.Machine, dst *Machine, resolver conversion.APIVersionResolver) error {
	return machineConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// machineSpecUp converts a Machine spec (also a template's); restored supplies the v1beta2-only
// minReadySeconds.
func machineSpecUp(in *MachineSpec, restored *clusterv1.MachineSpec, path string) (clusterv1.MachineSpec, error) {
	out := clusterv1.MachineSpec{
		ClusterName:     in.ClusterName,
		Bootstrap:       clusterv1.Bootstrap{DataSecretName: conversion.Copy(in.Bootstrap.DataSecretName)},
		Version:         conversion.Deref(in.Version),
		ProviderID:      conversion.Deref(in.ProviderID),
		FailureDomain:   conversion.Deref(in.FailureDomain),
		MinReadySeconds: conversion.Copy(restored.MinReadySeconds),
		ReadinessGates:  append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
		Deletion: clusterv1.MachineDeletionSpec{
			NodeDrainTimeoutSeconds:        conversion.DurationToSeconds(in.NodeDrainTimeout),
			NodeVolumeDetachTimeoutSeconds: conversion.DurationToSeconds(in.NodeVolumeDetachTimeout),
			NodeDeletionTimeoutSeconds:     conversion.DurationToSeconds(in.NodeDeletionTimeout),
		},
		Taints: append([]clusterv1.MachineTaint(nil), in.Taints...),
	}
	var err error
	if out.Bootstrap.ConfigRef, err = conversion.RefToContract(in.Bootstrap.ConfigRef, path+".bootstrap.configRef"); err != nil {
		return out, err
	}
	out.InfrastructureRef, err = conversion.RefToContract(&in.InfrastructureRef, path+".infrastructureRef")
	return out, err
}

func machineSpecDown(ctx context.Context, in *clusterv1.MachineSpec, namespace string, stored *MachineSpec,
	resolver conversion.APIVersionResolver, path string) (MachineSpec, error) {
	if stored == nil {
		stored = &MachineSpec{}
	}
	out := MachineSpec{
		ClusterName:             in.ClusterName,
		Bootstrap:               Bootstrap{DataSecretName: conversion.Copy(in.Bootstrap.DataSecretName)},
		Version:                 conversion.NonZero(in.Version),
		ProviderID:              conversion.NonZero(in.ProviderID),
		FailureDomain:           conversion.NonZero(in.FailureDomain),
		ReadinessGates:          append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
		NodeDrainTimeout:        conversion.SecondsToDuration(in.Deletion.NodeDrainTimeoutSeconds, stored.NodeDrainTimeout),
		NodeVolumeDetachTimeout: conversion.SecondsToDuration(in.Deletion.NodeVolumeDetachTimeoutSeconds, stored.NodeVolumeDetachTimeout),
		NodeDeletionTimeout:     conversion.SecondsToDuration(in.Deletion.NodeDeletionTimeoutSeconds, stored.NodeDeletionTimeout),
		Taints:                  append([]clusterv1.MachineTaint(nil), in.Taints...),
	}
	var err error
	if out.Bootstrap.ConfigRef, err = conversion.RefFromContract(ctx, in.Bootstrap.ConfigRef, namespace, stored.Bootstrap.ConfigRef, resolver, path+".bootstrap.configRef"); err != nil {
		return out, err
	}
	infra, err := conversion.RefFromContract(ctx, in.InfrastructureRef, namespace, &stored.InfrastructureRef, resolver, path+".infrastructureRef")
	if infra != nil {
		out.InfrastructureRef = *infra
	}
	return out, err
}

func machineStatusUp(in *MachineStatus, restored *clusterv1.MachineStatus) clusterv1.MachineStatus {
	out := clusterv1.MachineStatus{
		Initialization: clusterv1.MachineInitializationStatus{
			InfrastructureProvisioned:  conversion.BoolIntent(in.InfrastructureReady, restored.Initialization.InfrastructureProvisioned),
			BootstrapDataSecretCreated: conversion.BoolIntent(in.BootstrapReady, restored.Initialization.BootstrapDataSecretCreated),
		},
		NodeInfo:               in.NodeInfo.DeepCopy(),
		LastUpdated:            conversion.TimeFromPtr(in.LastUpdated),
		Addresses:              append(clusterv1.MachineAddresses(nil), in.Addresses...),
		FailureDomain:          restored.FailureDomain,
		Phase:                  in.Phase,
		CertificatesExpiryDate: conversion.TimeFromPtr(in.CertificatesExpiryDate),
		ObservedGeneration:     in.ObservedGeneration,
	}
	// v1beta1 has no Updating phase: v1beta2's in-place update shows as Running (as upstream).
	if restored.Phase == string(clusterv1.MachinePhaseUpdating) && in.Phase == string(clusterv1.MachinePhaseRunning) {
		out.Phase = restored.Phase
	}
	if in.NodeRef != nil {
		out.NodeRef = clusterv1.MachineNodeReference{Name: in.NodeRef.Name}
	}
	if in.V1Beta2 != nil {
		out.Conditions = in.V1Beta2.Conditions
	}
	if d := in.Deletion; d != nil {
		out.Deletion = &clusterv1.MachineDeletionStatus{
			NodeDrainStartTime:               conversion.TimeFromPtr(d.NodeDrainStartTime),
			WaitForNodeVolumeDetachStartTime: conversion.TimeFromPtr(d.WaitForNodeVolumeDetachStartTime),
		}
	}
	return out
}

func machineStatusDown(in *clusterv1.MachineStatus) MachineStatus {
	out := MachineStatus{
		NodeInfo:               in.NodeInfo.DeepCopy(),
		LastUpdated:            conversion.TimeToPtr(in.LastUpdated),
		Addresses:              append(clusterv1.MachineAddresses(nil), in.Addresses...),
		Phase:                  in.Phase,
		CertificatesExpiryDate: conversion.TimeToPtr(in.CertificatesExpiryDate),
		BootstrapReady:         conversion.Deref(in.Initialization.BootstrapDataSecretCreated),
		InfrastructureReady:    conversion.Deref(in.Initialization.InfrastructureProvisioned),
		ObservedGeneration:     in.ObservedGeneration,
	}
	if out.Phase == string(clusterv1.MachinePhaseUpdating) {
		out.Phase = string(clusterv1.MachinePhaseRunning)
	}
	if in.NodeRef.IsDefined() {
		out.NodeRef = &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: in.NodeRef.Name}
	}
	if len(in.Conditions) > 0 {
		out.V1Beta2 = &MachineV1Beta2Status{Conditions: in.Conditions}
	}
	if d := in.Deletion; d != nil {
		out.Deletion = &MachineDeletionStatus{
			NodeDrainStartTime:               conversion.TimeToPtr(d.NodeDrainStartTime),
			WaitForNodeVolumeDetachStartTime: conversion.TimeToPtr(d.WaitForNodeVolumeDetachStartTime),
		}
	}
	return out
}

func machineTemplateUp(in *MachineTemplateSpec, restored *clusterv1.MachineTemplateSpec) (clusterv1.MachineTemplateSpec, error) {
	spec, err := machineSpecUp(&in.Spec, &restored.Spec, "spec.template.spec")
	return clusterv1.MachineTemplateSpec{ObjectMeta: templateMetaUp(in.ObjectMeta), Spec: spec}, err
}

func machineTemplateDown(ctx context.Context, in *clusterv1.MachineTemplateSpec, namespace string, stored *MachineTemplateSpec,
	resolver conversion.APIVersionResolver) (MachineTemplateSpec, error) {
	var storedSpec *MachineSpec
	if stored != nil {
		storedSpec = &stored.Spec
	}
	spec, err := machineSpecDown(ctx, &in.Spec, namespace, storedSpec, resolver, "spec.template.spec")
	return MachineTemplateSpec{ObjectMeta: templateMetaDown(in.ObjectMeta), Spec: spec}, err
}
