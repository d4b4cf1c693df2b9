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
	return machineHealthCheckConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

func machineHealthCheckSpecUp(in *MachineHealthCheckSpec, restored *clusterv1.MachineHealthCheckSpec) clusterv1.MachineHealthCheckSpec {
	hc := in.healthCheck()
	return clusterv1.MachineHealthCheckSpec{
		ClusterName: in.ClusterName,
		Selector:    *in.Selector.DeepCopy(),
		Checks:      clusterv1.MachineHealthCheckChecks(healthCheckChecksUp(&hc, clusterv1.HealthCheckChecks(restored.Checks))),
		Remediation: clusterv1.MachineHealthCheckRemediation{
			TriggerIf:   clusterv1.MachineHealthCheckRemediationTriggerIf(triggerIfUp(&hc)),
			TemplateRef: remediationTemplateUp(in.RemediationTemplate),
		},
	}
}

// healthCheck is the spec's health-check fields in the shape ClusterClass and topology share.
func (in *MachineHealthCheckSpec) healthCheck() MachineHealthCheckClass {
	return MachineHealthCheckClass{
		UnhealthyConditions: in.UnhealthyConditions, UnhealthyMachineConditions: in.UnhealthyMachineConditions,
		MaxUnhealthy: in.MaxUnhealthy, UnhealthyRange: in.UnhealthyRange,
		NodeStartupTimeout: in.NodeStartupTimeout, RemediationTemplate: in.RemediationTemplate,
	}
}

func machineHealthCheckSpecDown(in *clusterv1.MachineHealthCheckSpec, namespace string, stored *MachineHealthCheckSpec) MachineHealthCheckSpec {
	if stored == nil {
		stored = &MachineHealthCheckSpec{}
	}
	storedHC := stored.healthCheck()
	var hc MachineHealthCheckClass
	healthCheckChecksDown(clusterv1.HealthCheckChecks(in.Checks), &storedHC, &hc)
	triggerIfDown(clusterv1.HealthCheckRemediationTriggerIf(in.Remediation.TriggerIf), &hc)
	return MachineHealthCheckSpec{
		ClusterName:                in.ClusterName,
		Selector:                   *in.Selector.DeepCopy(),
		UnhealthyConditions:        hc.UnhealthyConditions,
		UnhealthyMachineConditions: hc.UnhealthyMachineConditions,
		MaxUnhealthy:               hc.MaxUnhealthy,
		UnhealthyRange:             hc.UnhealthyRange,
		NodeStartupTimeout:         hc.NodeStartupTimeout,
		RemediationTemplate:        remediationTemplateDown(in.Remediation.TemplateRef, namespace, stored.RemediationTemplate),
	}
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
