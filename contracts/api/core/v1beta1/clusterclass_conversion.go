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

// ClusterClass: templates referenced as `ref` ObjectReferences become templateRefs
// {apiVersion, kind, name} (down: in the ClusterClass's namespace, as upstream, or as the v1beta1
// client wrote the reference when it names the same template); naming strategies become naming;
// health checks, durations and a MachineDeployment class's strategy map as in the Cluster topology.

var clusterClassConversion = conversion.KindConversion[ClusterClassSpec, ClusterClassStatus, clusterv1.ClusterClassSpec, clusterv1.ClusterClassStatus]{
	SpecUp: func(in *ClusterClassSpec, restored *clusterv1.ClusterClassSpec) (clusterv1.ClusterClassSpec, error) {
		return clusterClassSpecUp(in, restored), nil
	},
	SpecDown: func(_ context.Context, in *clusterv1.ClusterClassSpec, namespace string, stored *ClusterClassSpec, _ conversion.APIVersionResolver) (ClusterClassSpec, error) {
		return clusterClassSpecDown(in, namespace, stored), nil
	},
	StatusUp:   clusterClassStatusUp,
	StatusDown: clusterClassStatusDown,
	// Upstream's v1beta1 ClusterClass has no Ready: its conditions are these two.
	Derived: DerivedConditions(func(s *ClusterClassStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.ClusterClassStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: "VariablesReconciled", From: clusterv1.ClusterClassVariablesReadyCondition},
		DerivedCondition{Type: "RefVersionsUpToDate", From: clusterv1.ClusterClassRefVersionsUpToDateCondition}),
}

// ConvertClusterClassToHub converts a v1beta1 ClusterClass to v1beta2.
func ConvertClusterClassToHub(_ context.Context, src *ClusterClass, dst *clusterv1.ClusterClass) error {
	return clusterClassConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToClusterClass converts a v1beta2 ClusterClass to v1beta1. A ClusterClass's
// references carry their apiVersion in both versions, so resolver is not needed.
func ConvertHubToClusterClass(ctx context.Context, src *clusterv1.ClusterClass, dst *ClusterClass, resolver conversion.APIVersionResolver) error {
	return clusterClassConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func clusterClassSpecUp(in *ClusterClassSpec, restored *clusterv1.ClusterClassSpec) clusterv1.ClusterClassSpec {
	out := clusterv1.ClusterClassSpec{
		AvailabilityGates:  append([]clusterv1.ClusterAvailabilityGate(nil), in.AvailabilityGates...),
		Infrastructure:     clusterv1.InfrastructureClass{TemplateRef: templateRefUp(in.Infrastructure.Ref)},
		ControlPlane:       controlPlaneClassUp(&in.ControlPlane, &restored.ControlPlane),
		Upgrade:            in.Upgrade,
		KubernetesVersions: append([]string(nil), in.KubernetesVersions...),
	}
	if s := in.InfrastructureNamingStrategy; s != nil {
		out.Infrastructure.Naming.Template = conversion.Deref(s.Template)
	}
	for i := range in.Workers.MachineDeployments {
		md := &in.Workers.MachineDeployments[i]
		was := recordedOr(restored.Workers.MachineDeployments, i, func(r *clusterv1.MachineDeploymentClass) bool { return r.Class == md.Class })
		out.Workers.MachineDeployments = append(out.Workers.MachineDeployments, machineDeploymentClassUp(md, &was))
	}
	for i := range in.Workers.MachinePools {
		out.Workers.MachinePools = append(out.Workers.MachinePools, machinePoolClassUp(&in.Workers.MachinePools[i]))
	}
	for i := range in.Variables {
		v := &in.Variables[i]
		was, recorded := recordedFor(restored.Variables, i, func(r *clusterv1.ClusterClassVariable) bool { return r.Name == v.Name })
		out.Variables = append(out.Variables, clusterClassVariableUp(v, &was, recorded))
	}
	for i := range in.Patches {
		p := &in.Patches[i]
		was := recordedOr(restored.Patches, i, func(r *clusterv1.ClusterClassPatch) bool { return r.Name == p.Name })
		out.Patches = append(out.Patches, patchUp(p, &was))
	}
	return out
}

func clusterClassSpecDown(in *clusterv1.ClusterClassSpec, namespace string, stored *ClusterClassSpec) ClusterClassSpec {
	if stored == nil {
		stored = &ClusterClassSpec{}
	}
	out := ClusterClassSpec{
		AvailabilityGates:  append([]clusterv1.ClusterAvailabilityGate(nil), in.AvailabilityGates...),
		Infrastructure:     LocalObjectTemplate{Ref: classTemplateRefDown(in.Infrastructure.TemplateRef, namespace, stored.Infrastructure.Ref)},
		ControlPlane:       controlPlaneClassDown(&in.ControlPlane, namespace, &stored.ControlPlane),
		Upgrade:            in.Upgrade,
		KubernetesVersions: append([]string(nil), in.KubernetesVersions...),
	}
	if t := conversion.NonZero(in.Infrastructure.Naming.Template); t != nil {
		out.InfrastructureNamingStrategy = &InfrastructureNamingStrategy{Template: t}
	}
	for i := range in.Workers.MachineDeployments {
		md := &in.Workers.MachineDeployments[i]
		was := recordedOr(stored.Workers.MachineDeployments, i, func(s *MachineDeploymentClass) bool { return s.Class == md.Class })
		out.Workers.MachineDeployments = append(out.Workers.MachineDeployments, machineDeploymentClassDown(md, namespace, &was))
	}
	for i := range in.Workers.MachinePools {
		mp := &in.Workers.MachinePools[i]
		was := recordedOr(stored.Workers.MachinePools, i, func(s *MachinePoolClass) bool { return s.Class == mp.Class })
		out.Workers.MachinePools = append(out.Workers.MachinePools, machinePoolClassDown(mp, namespace, &was))
	}
	for i := range in.Variables {
		out.Variables = append(out.Variables, clusterClassVariableDown(&in.Variables[i]))
	}
	for i := range in.Patches {
		out.Patches = append(out.Patches, patchDown(&in.Patches[i]))
	}
	return out
}

func controlPlaneClassUp(in *ControlPlaneClass, restored *clusterv1.ControlPlaneClass) clusterv1.ControlPlaneClass {
	out := clusterv1.ControlPlaneClass{
		Metadata:       templateMetaUp(in.Metadata),
		TemplateRef:    templateRefUp(in.Ref),
		Deletion:       deletionUp(in.NodeDrainTimeout, in.NodeVolumeDetachTimeout, in.NodeDeletionTimeout),
		Taints:         append([]clusterv1.MachineTaint(nil), in.Taints...),
		ReadinessGates: append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
	}
	if in.MachineInfrastructure != nil {
		out.MachineInfrastructure.TemplateRef = templateRefUp(in.MachineInfrastructure.Ref)
	}
	if s := in.NamingStrategy; s != nil {
		out.Naming.Template = conversion.Deref(s.Template)
	}
	if hc := in.MachineHealthCheck; hc != nil {
		out.HealthCheck = clusterv1.ControlPlaneClassHealthCheck{
			Checks:      healthCheckChecksUp(hc, restored.HealthCheck.Checks),
			Remediation: clusterv1.HealthCheckRemediation{TriggerIf: triggerIfUp(hc), TemplateRef: remediationTemplateUp(hc.RemediationTemplate)},
		}
	}
	return out
}

func controlPlaneClassDown(in *clusterv1.ControlPlaneClass, namespace string, stored *ControlPlaneClass) ControlPlaneClass {
	out := ControlPlaneClass{
		Metadata:            templateMetaDown(in.Metadata),
		LocalObjectTemplate: LocalObjectTemplate{Ref: classTemplateRefDown(in.TemplateRef, namespace, stored.Ref)},
		Taints:              append([]clusterv1.MachineTaint(nil), in.Taints...),
		ReadinessGates:      append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
	}
	if in.MachineInfrastructure.TemplateRef.IsDefined() {
		var was *corev1.ObjectReference
		if stored.MachineInfrastructure != nil {
			was = stored.MachineInfrastructure.Ref
		}
		out.MachineInfrastructure = &LocalObjectTemplate{Ref: classTemplateRefDown(in.MachineInfrastructure.TemplateRef, namespace, was)}
	}
	if t := conversion.NonZero(in.Naming.Template); t != nil {
		out.NamingStrategy = &ControlPlaneClassNamingStrategy{Template: t}
	}
	out.NodeDrainTimeout, out.NodeVolumeDetachTimeout, out.NodeDeletionTimeout = deletionDown(in.Deletion,
		stored.NodeDrainTimeout, stored.NodeVolumeDetachTimeout, stored.NodeDeletionTimeout)
	if hc := in.HealthCheck; !conversion.IsZero(hc) {
		out.MachineHealthCheck = healthCheckClassDown(hc.Checks, hc.Remediation.TriggerIf, hc.Remediation.TemplateRef, namespace, stored.MachineHealthCheck)
	}
	return out
}

func machineDeploymentClassUp(in *MachineDeploymentClass, restored *clusterv1.MachineDeploymentClass) clusterv1.MachineDeploymentClass {
	out := clusterv1.MachineDeploymentClass{
		Metadata:        templateMetaUp(in.Template.Metadata),
		Class:           in.Class,
		Bootstrap:       clusterv1.WorkerClassBootstrapTemplate{TemplateRef: templateRefUp(in.Template.Bootstrap.Ref)},
		Infrastructure:  clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: templateRefUp(in.Template.Infrastructure.Ref)},
		FailureDomain:   conversion.Deref(in.FailureDomain),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
		ReadinessGates:  append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
	}
	if s := in.NamingStrategy; s != nil {
		out.Naming.Template = conversion.Deref(s.Template)
	}
	d := deletionUp(in.NodeDrainTimeout, in.NodeVolumeDetachTimeout, in.NodeDeletionTimeout)
	out.Deletion = clusterv1.MachineDeploymentClassMachineDeletionSpec{NodeDrainTimeoutSeconds: d.NodeDrainTimeoutSeconds,
		NodeVolumeDetachTimeoutSeconds: d.NodeVolumeDetachTimeoutSeconds, NodeDeletionTimeoutSeconds: d.NodeDeletionTimeoutSeconds}
	out.Rollout.Strategy, out.Deletion.Order, out.HealthCheck.Remediation.MaxInFlight = workerStrategyUp(in.Strategy)
	if hc := in.MachineHealthCheck; hc != nil {
		out.HealthCheck.Checks = healthCheckChecksUp(hc, restored.HealthCheck.Checks)
		out.HealthCheck.Remediation.TriggerIf = triggerIfUp(hc)
		out.HealthCheck.Remediation.TemplateRef = remediationTemplateUp(hc.RemediationTemplate)
	}
	return out
}

func machineDeploymentClassDown(in *clusterv1.MachineDeploymentClass, namespace string, stored *MachineDeploymentClass) MachineDeploymentClass {
	out := MachineDeploymentClass{
		Class: in.Class,
		Template: MachineDeploymentClassTemplate{
			Metadata:       templateMetaDown(in.Metadata),
			Bootstrap:      LocalObjectTemplate{Ref: classTemplateRefDown(in.Bootstrap.TemplateRef, namespace, stored.Template.Bootstrap.Ref)},
			Infrastructure: LocalObjectTemplate{Ref: classTemplateRefDown(in.Infrastructure.TemplateRef, namespace, stored.Template.Infrastructure.Ref)},
		},
		FailureDomain:   conversion.NonZero(in.FailureDomain),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
		ReadinessGates:  append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
		Strategy:        workerStrategyDown(in.Rollout.Strategy, in.Deletion.Order, in.HealthCheck.Remediation.MaxInFlight),
	}
	if t := conversion.NonZero(in.Naming.Template); t != nil {
		out.NamingStrategy = &MachineDeploymentClassNamingStrategy{Template: t}
	}
	out.NodeDrainTimeout, out.NodeVolumeDetachTimeout, out.NodeDeletionTimeout = deletionDown(clusterv1.MachineDeletionSpec{
		NodeDrainTimeoutSeconds: in.Deletion.NodeDrainTimeoutSeconds, NodeVolumeDetachTimeoutSeconds: in.Deletion.NodeVolumeDetachTimeoutSeconds,
		NodeDeletionTimeoutSeconds: in.Deletion.NodeDeletionTimeoutSeconds,
	}, stored.NodeDrainTimeout, stored.NodeVolumeDetachTimeout, stored.NodeDeletionTimeout)
	// maxInFlight went to strategy.remediation: the health-check stanza is written only when
	// something else is set, as upstream.
	if hc := in.HealthCheck; !conversion.IsZero(hc.Checks) || !conversion.IsZero(hc.Remediation.TriggerIf) || !conversion.IsZero(hc.Remediation.TemplateRef) {
		out.MachineHealthCheck = healthCheckClassDown(hc.Checks, hc.Remediation.TriggerIf, hc.Remediation.TemplateRef, namespace, stored.MachineHealthCheck)
	}
	return out
}

func machinePoolClassUp(in *MachinePoolClass) clusterv1.MachinePoolClass {
	out := clusterv1.MachinePoolClass{
		Metadata:        templateMetaUp(in.Template.Metadata),
		Class:           in.Class,
		Bootstrap:       clusterv1.WorkerClassBootstrapTemplate{TemplateRef: templateRefUp(in.Template.Bootstrap.Ref)},
		Infrastructure:  clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: templateRefUp(in.Template.Infrastructure.Ref)},
		FailureDomains:  append([]string(nil), in.FailureDomains...),
		Deletion:        deletionUp(in.NodeDrainTimeout, in.NodeVolumeDetachTimeout, in.NodeDeletionTimeout),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
	}
	if s := in.NamingStrategy; s != nil {
		out.Naming.Template = conversion.Deref(s.Template)
	}
	return out
}

func machinePoolClassDown(in *clusterv1.MachinePoolClass, namespace string, stored *MachinePoolClass) MachinePoolClass {
	out := MachinePoolClass{
		Class: in.Class,
		Template: MachinePoolClassTemplate{
			Metadata:       templateMetaDown(in.Metadata),
			Bootstrap:      LocalObjectTemplate{Ref: classTemplateRefDown(in.Bootstrap.TemplateRef, namespace, stored.Template.Bootstrap.Ref)},
			Infrastructure: LocalObjectTemplate{Ref: classTemplateRefDown(in.Infrastructure.TemplateRef, namespace, stored.Template.Infrastructure.Ref)},
		},
		FailureDomains:  append([]string(nil), in.FailureDomains...),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
	}
	if t := conversion.NonZero(in.Naming.Template); t != nil {
		out.NamingStrategy = &MachinePoolClassNamingStrategy{Template: t}
	}
	out.NodeDrainTimeout, out.NodeVolumeDetachTimeout, out.NodeDeletionTimeout = deletionDown(in.Deletion,
		stored.NodeDrainTimeout, stored.NodeVolumeDetachTimeout, stored.NodeDeletionTimeout)
	return out
}

func healthCheckClassDown(checks clusterv1.HealthCheckChecks, triggerIf clusterv1.HealthCheckRemediationTriggerIf,
	templateRef clusterv1.MachineHealthCheckRemediationTemplateReference, namespace string, stored *MachineHealthCheckClass) *MachineHealthCheckClass {
	out := &MachineHealthCheckClass{}
	healthCheckChecksDown(checks, stored, out)
	triggerIfDown(triggerIf, out)
	out.RemediationTemplate = remediationTemplateDown(templateRef, namespace, storedRemediationTemplate(stored))
	return out
}

func templateRefUp(in *corev1.ObjectReference) clusterv1.ClusterClassTemplateReference {
	if in == nil {
		return clusterv1.ClusterClassTemplateReference{}
	}
	return clusterv1.ClusterClassTemplateReference{APIVersion: in.APIVersion, Kind: in.Kind, Name: in.Name}
}

func classTemplateRefDown(in clusterv1.ClusterClassTemplateReference, namespace string, stored *corev1.ObjectReference) *corev1.ObjectReference {
	return templateRefDown(in.APIVersion, in.Kind, in.Name, namespace, stored)
}

func clusterClassStatusUp(in *ClusterClassStatus, restored *clusterv1.ClusterClassStatus) clusterv1.ClusterClassStatus {
	out := clusterv1.ClusterClassStatus{ObservedGeneration: in.ObservedGeneration}
	if in.V1Beta2 != nil {
		out.Conditions = in.V1Beta2.Conditions
	}
	for i := range in.Variables {
		v := &in.Variables[i]
		was := recordedOr(restored.Variables, i, func(r *clusterv1.ClusterClassStatusVariable) bool { return r.Name == v.Name })
		out.Variables = append(out.Variables, statusVariableUp(v, &was))
	}
	return out
}

func clusterClassStatusDown(in *clusterv1.ClusterClassStatus) ClusterClassStatus {
	out := ClusterClassStatus{ObservedGeneration: in.ObservedGeneration}
	if len(in.Conditions) > 0 {
		out.V1Beta2 = &ClusterClassV1Beta2Status{Conditions: in.Conditions}
	}
	for i := range in.Variables {
		out.Variables = append(out.Variables, statusVariableDown(&in.Variables[i]))
	}
	return out
}
