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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// Cluster.spec.topology: class/classNamespace are classRef, health checks move under
// healthCheck.{checks,remediation}, durations become seconds, a MachineDeployment's strategy
// splits into rollout.strategy, deletion.order and healthCheck.remediation.maxInFlight. Going up,
// restored (the v1beta2 topology recorded by the last down-conversion, zero when none) gives back
// what v1beta1 cannot say (an unset condition timeout); going down, stored (the v1beta1 topology
// a client last wrote, nil when none) gives back what v1beta2 has no field for: rolloutAfter,
// variables' definitionFrom, sub-second durations and the remediation template's namespace.

func topologyUp(in *Topology, restored *clusterv1.Topology) clusterv1.Topology {
	if in == nil {
		return clusterv1.Topology{}
	}
	out := clusterv1.Topology{
		ClassRef:     clusterv1.ClusterClassRef{Name: in.Class, Namespace: in.ClassNamespace},
		Version:      in.Version,
		ControlPlane: controlPlaneTopologyUp(&in.ControlPlane, &restored.ControlPlane),
		Variables:    clusterVariablesUp(in.Variables),
	}
	if w := in.Workers; w != nil {
		for i := range w.MachineDeployments {
			md := &w.MachineDeployments[i]
			was := recordedOr(restored.Workers.MachineDeployments, i, func(r *clusterv1.MachineDeploymentTopology) bool { return r.Name == md.Name })
			out.Workers.MachineDeployments = append(out.Workers.MachineDeployments, machineDeploymentTopologyUp(md, &was))
		}
		for i := range w.MachinePools {
			out.Workers.MachinePools = append(out.Workers.MachinePools, machinePoolTopologyUp(&w.MachinePools[i]))
		}
	}
	return out
}

func topologyDown(in *clusterv1.Topology, namespace string, stored *Topology) *Topology {
	if !in.IsDefined() {
		return nil
	}
	if stored == nil {
		stored = &Topology{}
	}
	out := &Topology{
		Class:          in.ClassRef.Name,
		ClassNamespace: in.ClassRef.Namespace,
		Version:        in.Version,
		RolloutAfter:   stored.RolloutAfter.DeepCopy(),
		ControlPlane:   controlPlaneTopologyDown(&in.ControlPlane, namespace, &stored.ControlPlane),
		Variables:      clusterVariablesDown(in.Variables, stored.Variables),
	}
	storedWorkers := stored.Workers
	if storedWorkers == nil {
		storedWorkers = &WorkersTopology{}
	}
	if len(in.Workers.MachineDeployments) > 0 || len(in.Workers.MachinePools) > 0 {
		out.Workers = &WorkersTopology{}
	}
	for i := range in.Workers.MachineDeployments {
		md := &in.Workers.MachineDeployments[i]
		was := recordedOr(storedWorkers.MachineDeployments, i, func(s *MachineDeploymentTopology) bool { return s.Name == md.Name })
		out.Workers.MachineDeployments = append(out.Workers.MachineDeployments, machineDeploymentTopologyDown(md, namespace, &was))
	}
	for i := range in.Workers.MachinePools {
		mp := &in.Workers.MachinePools[i]
		was := recordedOr(storedWorkers.MachinePools, i, func(s *MachinePoolTopology) bool { return s.Name == mp.Name })
		out.Workers.MachinePools = append(out.Workers.MachinePools, machinePoolTopologyDown(mp, &was))
	}
	return out
}

func controlPlaneTopologyUp(in *ControlPlaneTopology, restored *clusterv1.ControlPlaneTopology) clusterv1.ControlPlaneTopology {
	out := clusterv1.ControlPlaneTopology{
		Metadata:       templateMetaUp(in.Metadata),
		Replicas:       conversion.Copy(in.Replicas),
		Rollout:        in.Rollout,
		Deletion:       deletionUp(in.NodeDrainTimeout, in.NodeVolumeDetachTimeout, in.NodeDeletionTimeout),
		Taints:         append([]clusterv1.MachineTaint(nil), in.Taints...),
		ReadinessGates: append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
	}
	if in.Variables != nil {
		out.Variables.Overrides = clusterVariablesUp(in.Variables.Overrides)
	}
	if hc := in.MachineHealthCheck; hc != nil {
		out.HealthCheck = clusterv1.ControlPlaneTopologyHealthCheck{
			Enabled: conversion.Copy(hc.Enable),
			Checks:  healthCheckChecksUp(&hc.MachineHealthCheckClass, restored.HealthCheck.Checks),
			Remediation: clusterv1.HealthCheckRemediation{
				TriggerIf:   triggerIfUp(&hc.MachineHealthCheckClass),
				TemplateRef: remediationTemplateUp(hc.RemediationTemplate),
			},
		}
	}
	return out
}

func controlPlaneTopologyDown(in *clusterv1.ControlPlaneTopology, namespace string, stored *ControlPlaneTopology) ControlPlaneTopology {
	out := ControlPlaneTopology{
		Metadata:       templateMetaDown(in.Metadata),
		Replicas:       conversion.Copy(in.Replicas),
		Rollout:        in.Rollout,
		Taints:         append([]clusterv1.MachineTaint(nil), in.Taints...),
		ReadinessGates: append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
	}
	out.NodeDrainTimeout, out.NodeVolumeDetachTimeout, out.NodeDeletionTimeout = deletionDown(in.Deletion,
		stored.NodeDrainTimeout, stored.NodeVolumeDetachTimeout, stored.NodeDeletionTimeout)
	if len(in.Variables.Overrides) > 0 {
		out.Variables = &ControlPlaneVariables{Overrides: clusterVariablesDown(in.Variables.Overrides, storedOverrides(stored.Variables))}
	}
	if hc := in.HealthCheck; hc.Enabled != nil || !conversion.IsZero(hc.Checks) || !conversion.IsZero(hc.Remediation) {
		out.MachineHealthCheck = topologyHealthCheckDown(hc.Enabled, hc.Checks, hc.Remediation, namespace, stored.MachineHealthCheck)
	}
	return out
}

func machineDeploymentTopologyUp(in *MachineDeploymentTopology, restored *clusterv1.MachineDeploymentTopology) clusterv1.MachineDeploymentTopology {
	out := clusterv1.MachineDeploymentTopology{
		Metadata:        templateMetaUp(in.Metadata),
		Class:           in.Class,
		Name:            in.Name,
		FailureDomain:   conversion.Deref(in.FailureDomain),
		Replicas:        conversion.Copy(in.Replicas),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
		ReadinessGates:  append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
		Rollout:         clusterv1.MachineDeploymentTopologyRolloutSpec{After: in.Rollout.After},
	}
	d := deletionUp(in.NodeDrainTimeout, in.NodeVolumeDetachTimeout, in.NodeDeletionTimeout)
	out.Deletion = clusterv1.MachineDeploymentClassMachineDeletionSpec{NodeDrainTimeoutSeconds: d.NodeDrainTimeoutSeconds,
		NodeVolumeDetachTimeoutSeconds: d.NodeVolumeDetachTimeoutSeconds, NodeDeletionTimeoutSeconds: d.NodeDeletionTimeoutSeconds}
	out.Rollout.Strategy, out.Deletion.Order, out.HealthCheck.Remediation.MaxInFlight = workerStrategyUp(in.Strategy)
	if in.Variables != nil {
		out.Variables.Overrides = clusterVariablesUp(in.Variables.Overrides)
	}
	if hc := in.MachineHealthCheck; hc != nil {
		out.HealthCheck.Enabled = conversion.Copy(hc.Enable)
		out.HealthCheck.Checks = healthCheckChecksUp(&hc.MachineHealthCheckClass, restored.HealthCheck.Checks)
		out.HealthCheck.Remediation.TriggerIf = triggerIfUp(&hc.MachineHealthCheckClass)
		out.HealthCheck.Remediation.TemplateRef = remediationTemplateUp(hc.RemediationTemplate)
	}
	return out
}

func machineDeploymentTopologyDown(in *clusterv1.MachineDeploymentTopology, namespace string, stored *MachineDeploymentTopology) MachineDeploymentTopology {
	if stored == nil {
		stored = &MachineDeploymentTopology{}
	}
	out := MachineDeploymentTopology{
		Metadata:        templateMetaDown(in.Metadata),
		Class:           in.Class,
		Name:            in.Name,
		FailureDomain:   conversion.NonZero(in.FailureDomain),
		Replicas:        conversion.Copy(in.Replicas),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
		ReadinessGates:  append([]clusterv1.MachineReadinessGate(nil), in.ReadinessGates...),
		Rollout:         MachineDeploymentTopologyRolloutSpec{After: in.Rollout.After},
		Strategy:        workerStrategyDown(in.Rollout.Strategy, in.Deletion.Order, in.HealthCheck.Remediation.MaxInFlight),
	}
	out.NodeDrainTimeout, out.NodeVolumeDetachTimeout, out.NodeDeletionTimeout = deletionDown(clusterv1.MachineDeletionSpec{
		NodeDrainTimeoutSeconds: in.Deletion.NodeDrainTimeoutSeconds, NodeVolumeDetachTimeoutSeconds: in.Deletion.NodeVolumeDetachTimeoutSeconds,
		NodeDeletionTimeoutSeconds: in.Deletion.NodeDeletionTimeoutSeconds,
	}, stored.NodeDrainTimeout, stored.NodeVolumeDetachTimeout, stored.NodeDeletionTimeout)
	if len(in.Variables.Overrides) > 0 {
		out.Variables = &MachineDeploymentVariables{Overrides: clusterVariablesDown(in.Variables.Overrides, storedOverrides(stored.Variables))}
	}
	// maxInFlight went to strategy.remediation: the health-check stanza is written only when
	// something else is set, as upstream.
	hc := in.HealthCheck
	if remediation := (clusterv1.HealthCheckRemediation{TriggerIf: hc.Remediation.TriggerIf, TemplateRef: hc.Remediation.TemplateRef}); hc.Enabled != nil ||
		!conversion.IsZero(hc.Checks) || !conversion.IsZero(remediation) {
		out.MachineHealthCheck = topologyHealthCheckDown(hc.Enabled, hc.Checks, remediation, namespace, stored.MachineHealthCheck)
	}
	return out
}

func machinePoolTopologyUp(in *MachinePoolTopology) clusterv1.MachinePoolTopology {
	out := clusterv1.MachinePoolTopology{
		Metadata:        templateMetaUp(in.Metadata),
		Class:           in.Class,
		Name:            in.Name,
		FailureDomains:  append([]string(nil), in.FailureDomains...),
		Deletion:        deletionUp(in.NodeDrainTimeout, in.NodeVolumeDetachTimeout, in.NodeDeletionTimeout),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
		Replicas:        conversion.Copy(in.Replicas),
	}
	if in.Variables != nil {
		out.Variables.Overrides = clusterVariablesUp(in.Variables.Overrides)
	}
	return out
}

func machinePoolTopologyDown(in *clusterv1.MachinePoolTopology, stored *MachinePoolTopology) MachinePoolTopology {
	if stored == nil {
		stored = &MachinePoolTopology{}
	}
	out := MachinePoolTopology{
		Metadata:        templateMetaDown(in.Metadata),
		Class:           in.Class,
		Name:            in.Name,
		FailureDomains:  append([]string(nil), in.FailureDomains...),
		Taints:          append([]clusterv1.MachineTaint(nil), in.Taints...),
		MinReadySeconds: conversion.Copy(in.MinReadySeconds),
		Replicas:        conversion.Copy(in.Replicas),
	}
	out.NodeDrainTimeout, out.NodeVolumeDetachTimeout, out.NodeDeletionTimeout = deletionDown(in.Deletion,
		stored.NodeDrainTimeout, stored.NodeVolumeDetachTimeout, stored.NodeDeletionTimeout)
	if len(in.Variables.Overrides) > 0 {
		out.Variables = &MachinePoolVariables{Overrides: clusterVariablesDown(in.Variables.Overrides, storedOverrides(stored.Variables))}
	}
	return out
}

// topologyHealthCheckDown is a topology's v1beta1 health-check stanza: enable and, when set, the
// health check that replaces the class's.
func topologyHealthCheckDown(enabled *bool, checks clusterv1.HealthCheckChecks, remediation clusterv1.HealthCheckRemediation,
	namespace string, stored *MachineHealthCheckTopology) *MachineHealthCheckTopology {
	hc := healthCheckClassDown(checks, remediation.TriggerIf, remediation.TemplateRef, namespace, storedHealthCheck(stored))
	return &MachineHealthCheckTopology{Enable: conversion.Copy(enabled), MachineHealthCheckClass: *hc}
}

// storedOverrides are the variable overrides a v1beta1 client last wrote, nil when none.
func storedOverrides[T ControlPlaneVariables | MachineDeploymentVariables | MachinePoolVariables](v *T) []ClusterVariable {
	if v == nil {
		return nil
	}
	return ControlPlaneVariables(*v).Overrides
}

func clusterVariablesUp(in []ClusterVariable) []clusterv1.ClusterVariable {
	var out []clusterv1.ClusterVariable
	for _, v := range in {
		out = append(out, clusterv1.ClusterVariable{Name: v.Name, Value: *v.Value.DeepCopy()})
	}
	return out
}

// clusterVariablesDown keeps the definitionFrom a v1beta1 client wrote for a variable of that name.
func clusterVariablesDown(in []clusterv1.ClusterVariable, stored []ClusterVariable) []ClusterVariable {
	var out []ClusterVariable
	for i, v := range in {
		was := recordedOr(stored, i, func(s *ClusterVariable) bool { return s.Name == v.Name })
		out = append(out, ClusterVariable{Name: v.Name, DefinitionFrom: was.DefinitionFrom, Value: *v.Value.DeepCopy()})
	}
	return out
}

func deletionUp(drain, volumeDetach, deletion *metav1.Duration) clusterv1.MachineDeletionSpec {
	return clusterv1.MachineDeletionSpec{
		NodeDrainTimeoutSeconds:        conversion.DurationToSeconds(drain),
		NodeVolumeDetachTimeoutSeconds: conversion.DurationToSeconds(volumeDetach),
		NodeDeletionTimeoutSeconds:     conversion.DurationToSeconds(deletion),
	}
}

func deletionDown(in clusterv1.MachineDeletionSpec, drain, volumeDetach, deletion *metav1.Duration) (*metav1.Duration, *metav1.Duration, *metav1.Duration) {
	return conversion.SecondsToDuration(in.NodeDrainTimeoutSeconds, drain),
		conversion.SecondsToDuration(in.NodeVolumeDetachTimeoutSeconds, volumeDetach),
		conversion.SecondsToDuration(in.NodeDeletionTimeoutSeconds, deletion)
}

// workerStrategyUp splits a v1beta1 MachineDeployment strategy (topology or class) into v1beta2's
// rollout.strategy, deletion.order and healthCheck.remediation.maxInFlight.
func workerStrategyUp(in *MachineDeploymentStrategy) (clusterv1.MachineDeploymentClassRolloutStrategy, clusterv1.MachineSetDeletionOrder, *intstr.IntOrString) {
	var strategy clusterv1.MachineDeploymentClassRolloutStrategy
	if in == nil {
		return strategy, "", nil
	}
	strategy.Type = clusterv1.MachineDeploymentRolloutStrategyType(in.Type)
	var order clusterv1.MachineSetDeletionOrder
	if ru := in.RollingUpdate; ru != nil {
		strategy.RollingUpdate = clusterv1.MachineDeploymentClassRolloutStrategyRollingUpdate{MaxUnavailable: conversion.Copy(ru.MaxUnavailable), MaxSurge: conversion.Copy(ru.MaxSurge)}
		order = clusterv1.MachineSetDeletionOrder(conversion.Deref(ru.DeletePolicy))
	}
	var maxInFlight *intstr.IntOrString
	if in.Remediation != nil {
		maxInFlight = conversion.Copy(in.Remediation.MaxInFlight)
	}
	return strategy, order, maxInFlight
}

// workerStrategyDown writes a strategy stanza when any of its v1beta2 homes says something.
func workerStrategyDown(in clusterv1.MachineDeploymentClassRolloutStrategy, order clusterv1.MachineSetDeletionOrder, maxInFlight *intstr.IntOrString) *MachineDeploymentStrategy {
	if conversion.IsZero(in) && order == "" && maxInFlight == nil {
		return nil
	}
	out := &MachineDeploymentStrategy{Type: string(in.Type)}
	if ru := in.RollingUpdate; !conversion.IsZero(ru) || order != "" {
		out.RollingUpdate = &MachineRollingUpdateDeployment{MaxUnavailable: conversion.Copy(ru.MaxUnavailable), MaxSurge: conversion.Copy(ru.MaxSurge),
			DeletePolicy: conversion.NonZero(string(order))}
	}
	if maxInFlight != nil {
		out.Remediation = &RemediationStrategy{MaxInFlight: conversion.Copy(maxInFlight)}
	}
	return out
}
