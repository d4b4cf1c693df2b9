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

var machineHealthCheckConversion = conversion.KindConversion[MachineHealthCheckSpec, MachineHealthCheckStatus, clusterv1.MachineHealthCheckSpec, clusterv1.MachineHealthCheckStatus]{
	SpecUp: func(in *MachineHealthCheckSpec, restored *clusterv1.MachineHealthCheckSpec) (clusterv1.MachineHealthCheckSpec, error) {
		return machineHealthCheckSpecUp(in, restored), nil
	},
	SpecDown: func(_ context.Context, in *clusterv1.MachineHealthCheckSpec, namespace string, stored *MachineHealthCheckSpec, _ conversion.APIVersionResolver) (MachineHealthCheckSpec, error) {
		return machineHealthCheckSpecDown(in, namespace, stored), nil
	},
	StatusUp:   machineHealthCheckStatusUp,
	StatusDown: machineHealthCheckStatusDown,
	Derived: DerivedConditions(func(s *MachineHealthCheckStatus) *Conditions { return &s.Conditions },
		func(s *clusterv1.MachineHealthCheckStatus) []metav1.Condition { return s.Conditions },
		DerivedCondition{Type: "RemediationAllowed", From: clusterv1.MachineHealthCheckRemediationAllowedCondition}),
}

// ConvertMachineHealthCheckToHub converts a v1beta1 MachineHealthCheck to v1beta2.
func ConvertMachineHealthCheckToHub(_ context.Context, src *MachineHealthCheck, dst *clusterv1.MachineHealthCheck) error {
	return machineHealthCheckConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToMachineHealthCheck converts a v1beta2 MachineHealthCheck to v1beta1; resolver names the API version of
// references that v1beta1 clients did not write themselves.
func ConvertHubToMachineHealthCheck(ctx context.Context, src *clusterv1.MachineHealthCheck, dst *MachineHealthCheck, resolver conversion.APIVersionResolver) error {
	return machineHealthCheckConversion.Down(ctx, resolver, src, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func machineHealthCheckSpecUp(in *MachineHealthCheckSpec, restored *clusterv1.MachineHealthCheckSpec) clusterv1.MachineHealthCheckSpec {
	out := clusterv1.MachineHealthCheckSpec{
		ClusterName: in.ClusterName,
		Selector:    *in.Selector.DeepCopy(),
		Checks:      clusterv1.MachineHealthCheckChecks{NodeStartupTimeoutSeconds: conversion.DurationToSeconds(in.NodeStartupTimeout)},
		Remediation: clusterv1.MachineHealthCheckRemediation{TriggerIf: clusterv1.MachineHealthCheckRemediationTriggerIf{
			UnhealthyLessThanOrEqualTo: copyPtr(in.MaxUnhealthy),
			UnhealthyInRange:           conversion.Deref(in.UnhealthyRange),
		}},
	}
	for i, c := range in.UnhealthyConditions {
		var was *int32
		if i < len(restored.Checks.UnhealthyNodeConditions) && restored.Checks.UnhealthyNodeConditions[i].Type == c.Type {
			was = restored.Checks.UnhealthyNodeConditions[i].TimeoutSeconds
		}
		out.Checks.UnhealthyNodeConditions = append(out.Checks.UnhealthyNodeConditions, clusterv1.UnhealthyNodeCondition{
			Type: c.Type, Status: c.Status, TimeoutSeconds: timeoutUp(c.Timeout, was, i < len(restored.Checks.UnhealthyNodeConditions)),
		})
	}
	for i, c := range in.UnhealthyMachineConditions {
		var was *int32
		if i < len(restored.Checks.UnhealthyMachineConditions) && restored.Checks.UnhealthyMachineConditions[i].Type == c.Type {
			was = restored.Checks.UnhealthyMachineConditions[i].TimeoutSeconds
		}
		out.Checks.UnhealthyMachineConditions = append(out.Checks.UnhealthyMachineConditions, clusterv1.UnhealthyMachineCondition{
			Type: c.Type, Status: c.Status, TimeoutSeconds: timeoutUp(c.Timeout, was, i < len(restored.Checks.UnhealthyMachineConditions)),
		})
	}
	if r := in.RemediationTemplate; r != nil {
		out.Remediation.TemplateRef = clusterv1.MachineHealthCheckRemediationTemplateReference{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name}
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

func machineHealthCheckSpecDown(in *clusterv1.MachineHealthCheckSpec, namespace string, stored *MachineHealthCheckSpec) MachineHealthCheckSpec {
	if stored == nil {
		stored = &MachineHealthCheckSpec{}
	}
	out := MachineHealthCheckSpec{
		ClusterName:        in.ClusterName,
		Selector:           *in.Selector.DeepCopy(),
		MaxUnhealthy:       copyPtr(in.Remediation.TriggerIf.UnhealthyLessThanOrEqualTo),
		UnhealthyRange:     conversion.NonZero(in.Remediation.TriggerIf.UnhealthyInRange),
		NodeStartupTimeout: conversion.SecondsToDuration(in.Checks.NodeStartupTimeoutSeconds, stored.NodeStartupTimeout),
	}
	for _, c := range in.Checks.UnhealthyNodeConditions {
		out.UnhealthyConditions = append(out.UnhealthyConditions, UnhealthyCondition{Type: c.Type, Status: c.Status, Timeout: timeoutDown(c.TimeoutSeconds)})
	}
	for _, c := range in.Checks.UnhealthyMachineConditions {
		out.UnhealthyMachineConditions = append(out.UnhealthyMachineConditions, UnhealthyMachineCondition{Type: c.Type, Status: c.Status, Timeout: timeoutDown(c.TimeoutSeconds)})
	}
	if t := in.Remediation.TemplateRef; t.Name != "" || t.Kind != "" || t.APIVersion != "" {
		out.RemediationTemplate = &corev1.ObjectReference{APIVersion: t.APIVersion, Kind: t.Kind, Name: t.Name, Namespace: namespace}
		if s := stored.RemediationTemplate; s != nil && s.APIVersion == t.APIVersion && s.Kind == t.Kind && s.Name == t.Name {
			out.RemediationTemplate = s.DeepCopy()
		}
	}
	return out
}

func timeoutDown(s *int32) metav1.Duration {
	if d := conversion.SecondsToDuration(s, nil); d != nil {
		return *d
	}
	return metav1.Duration{}
}

func machineHealthCheckStatusUp(in *MachineHealthCheckStatus, restored *clusterv1.MachineHealthCheckStatus) clusterv1.MachineHealthCheckStatus {
	out := clusterv1.MachineHealthCheckStatus{
		ExpectedMachines:    conversion.Int32Intent(in.ExpectedMachines, restored.ExpectedMachines),
		CurrentHealthy:      conversion.Int32Intent(in.CurrentHealthy, restored.CurrentHealthy),
		RemediationsAllowed: conversion.Int32Intent(in.RemediationsAllowed, restored.RemediationsAllowed),
		ObservedGeneration:  in.ObservedGeneration,
		Targets:             append([]string(nil), in.Targets...),
	}
	if in.V1Beta2 != nil {
		out.Conditions = in.V1Beta2.Conditions
	}
	return out
}

func machineHealthCheckStatusDown(in *clusterv1.MachineHealthCheckStatus) MachineHealthCheckStatus {
	out := MachineHealthCheckStatus{
		ExpectedMachines:    conversion.Deref(in.ExpectedMachines),
		CurrentHealthy:      conversion.Deref(in.CurrentHealthy),
		RemediationsAllowed: conversion.Deref(in.RemediationsAllowed),
		ObservedGeneration:  in.ObservedGeneration,
		Targets:             append([]string(nil), in.Targets...),
	}
	if len(in.Conditions) > 0 {
		out.V1Beta2 = &MachineHealthCheckV1Beta2Status{Conditions: in.Conditions}
	}
	return out
}
