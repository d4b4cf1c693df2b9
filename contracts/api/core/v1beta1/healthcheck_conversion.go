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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// The health-check stanzas of MachineHealthCheck, ClusterClass and Cluster topology share one
// v1beta1 shape (MachineHealthCheckClass: durations, maxUnhealthy, remediationTemplate) and one
// v1beta2 shape (checks and remediation.triggerIf/templateRef); these helpers map it for all three.

func healthCheckChecksUp(in *MachineHealthCheckClass, restored clusterv1.HealthCheckChecks) clusterv1.HealthCheckChecks {
	out := clusterv1.HealthCheckChecks{NodeStartupTimeoutSeconds: conversion.DurationToSeconds(in.NodeStartupTimeout)}
	for i, c := range in.UnhealthyConditions {
		var was *int32
		recorded := i < len(restored.UnhealthyNodeConditions)
		if recorded && restored.UnhealthyNodeConditions[i].Type == c.Type {
			was = restored.UnhealthyNodeConditions[i].TimeoutSeconds
		}
		out.UnhealthyNodeConditions = append(out.UnhealthyNodeConditions, clusterv1.UnhealthyNodeCondition{
			Type: c.Type, Status: c.Status, TimeoutSeconds: timeoutUp(c.Timeout, was, recorded),
		})
	}
	for i, c := range in.UnhealthyMachineConditions {
		var was *int32
		recorded := i < len(restored.UnhealthyMachineConditions)
		if recorded && restored.UnhealthyMachineConditions[i].Type == c.Type {
			was = restored.UnhealthyMachineConditions[i].TimeoutSeconds
		}
		out.UnhealthyMachineConditions = append(out.UnhealthyMachineConditions, clusterv1.UnhealthyMachineCondition{
			Type: c.Type, Status: c.Status, TimeoutSeconds: timeoutUp(c.Timeout, was, recorded),
		})
	}
	return out
}

// timeoutUp always sets the v1beta2 timeout (as upstream), unless the recorded v1beta2 condition
// at that place had it unset and the v1beta1 one is 0.
func timeoutUp(d metav1.Duration, was *int32, recorded bool) *int32 {
	if recorded && was == nil && d.Duration == 0 {
		return nil
	}
	return conversion.DurationToSeconds(&d)
}

// healthCheckChecksDown fills out's checks from in; stored is what a v1beta1 client wrote last
// (nil when nothing), whose startup timeout wins when it is the same number of seconds.
func healthCheckChecksDown(in clusterv1.HealthCheckChecks, stored *MachineHealthCheckClass, out *MachineHealthCheckClass) {
	var storedStartup *metav1.Duration
	if stored != nil {
		storedStartup = stored.NodeStartupTimeout
	}
	out.NodeStartupTimeout = conversion.SecondsToDuration(in.NodeStartupTimeoutSeconds, storedStartup)
	for _, c := range in.UnhealthyNodeConditions {
		out.UnhealthyConditions = append(out.UnhealthyConditions, UnhealthyCondition{Type: c.Type, Status: c.Status, Timeout: timeoutDown(c.TimeoutSeconds)})
	}
	for _, c := range in.UnhealthyMachineConditions {
		out.UnhealthyMachineConditions = append(out.UnhealthyMachineConditions, UnhealthyMachineCondition{Type: c.Type, Status: c.Status, Timeout: timeoutDown(c.TimeoutSeconds)})
	}
}

func timeoutDown(s *int32) metav1.Duration {
	if d := conversion.SecondsToDuration(s, nil); d != nil {
		return *d
	}
	return metav1.Duration{}
}

func triggerIfUp(in *MachineHealthCheckClass) clusterv1.HealthCheckRemediationTriggerIf {
	return clusterv1.HealthCheckRemediationTriggerIf{UnhealthyLessThanOrEqualTo: conversion.Copy(in.MaxUnhealthy), UnhealthyInRange: conversion.Deref(in.UnhealthyRange)}
}

func triggerIfDown(in clusterv1.HealthCheckRemediationTriggerIf, out *MachineHealthCheckClass) {
	out.MaxUnhealthy = conversion.Copy(in.UnhealthyLessThanOrEqualTo)
	out.UnhealthyRange = conversion.NonZero(in.UnhealthyInRange)
}

func remediationTemplateUp(in *corev1.ObjectReference) clusterv1.MachineHealthCheckRemediationTemplateReference {
	if in == nil {
		return clusterv1.MachineHealthCheckRemediationTemplateReference{}
	}
	return clusterv1.MachineHealthCheckRemediationTemplateReference{APIVersion: in.APIVersion, Kind: in.Kind, Name: in.Name}
}

// remediationTemplateDown writes the reference in the namespace of the object holding it, as
// upstream, or as the v1beta1 client last wrote it when that names the same template.
func remediationTemplateDown(in clusterv1.MachineHealthCheckRemediationTemplateReference, namespace string, stored *corev1.ObjectReference) *corev1.ObjectReference {
	return templateRefDown(in.APIVersion, in.Kind, in.Name, namespace, stored)
}

// templateRefDown is a v1beta1 ObjectReference to a template, nil when nothing is named.
func templateRefDown(apiVersion, kind, name, namespace string, stored *corev1.ObjectReference) *corev1.ObjectReference {
	if apiVersion == "" && kind == "" && name == "" {
		return nil
	}
	if stored != nil && stored.APIVersion == apiVersion && stored.Kind == kind && stored.Name == name {
		return stored.DeepCopy()
	}
	return &corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Name: name, Namespace: namespace}
}

// healthCheckDefined reports whether a v1beta1 health-check stanza says anything.
func healthCheckDefined(in *MachineHealthCheckClass) bool {
	return len(in.UnhealthyConditions) > 0 || len(in.UnhealthyMachineConditions) > 0 || in.MaxUnhealthy != nil ||
		in.UnhealthyRange != nil || in.NodeStartupTimeout != nil || in.RemediationTemplate != nil
}

// storedHealthCheck is the health check a v1beta1 client last wrote, nil when none.
func storedHealthCheck(stored *MachineHealthCheckTopology) *MachineHealthCheckClass {
	if stored == nil {
		return nil
	}
	return &stored.MachineHealthCheckClass
}

func storedRemediationTemplate(stored *MachineHealthCheckClass) *corev1.ObjectReference {
	if stored == nil {
		return nil
	}
	return stored.RemediationTemplate
}
