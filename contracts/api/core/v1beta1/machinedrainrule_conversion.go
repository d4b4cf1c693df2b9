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

// MachineDrainRule has the same shape at both versions (upstream converts it field for field);
// only the selector type differs.
var machineDrainRuleConversion = conversion.SpecOnly(
	func(in *MachineDrainRuleSpec, _ *clusterv1.MachineDrainRuleSpec) (clusterv1.MachineDrainRuleSpec, error) {
		out := clusterv1.MachineDrainRuleSpec{Drain: clusterv1.MachineDrainRuleDrainConfig{Behavior: in.Drain.Behavior, Order: conversion.Copy(in.Drain.Order)}}
		for _, m := range in.Machines {
			out.Machines = append(out.Machines, clusterv1.MachineDrainRuleMachineSelector{
				Selector: selectorPtrUp(m.Selector), ClusterSelector: selectorPtrUp(m.ClusterSelector)})
		}
		for _, p := range in.Pods {
			out.Pods = append(out.Pods, clusterv1.MachineDrainRulePodSelector{
				Selector: selectorPtrUp(p.Selector), NamespaceSelector: selectorPtrUp(p.NamespaceSelector)})
		}
		return out, nil
	},
	func(_ context.Context, in *clusterv1.MachineDrainRuleSpec, _ string, _ *MachineDrainRuleSpec, _ conversion.APIVersionResolver) (MachineDrainRuleSpec, error) {
		out := MachineDrainRuleSpec{Drain: MachineDrainRuleDrainConfig{Behavior: in.Drain.Behavior, Order: conversion.Copy(in.Drain.Order)}}
		for _, m := range in.Machines {
			out.Machines = append(out.Machines, MachineDrainRuleMachineSelector{
				Selector: selectorPtrDown(m.Selector), ClusterSelector: selectorPtrDown(m.ClusterSelector)})
		}
		for _, p := range in.Pods {
			out.Pods = append(out.Pods, MachineDrainRulePodSelector{
				Selector: selectorPtrDown(p.Selector), NamespaceSelector: selectorPtrDown(p.NamespaceSelector)})
		}
		return out, nil
	},
)

// ConvertMachineDrainRuleToHub converts a v1beta1 MachineDrainRule to v1beta2.
func ConvertMachineDrainRuleToHub(_ context.Context, src *MachineDrainRule, dst *clusterv1.MachineDrainRule) error {
	return machineDrainRuleConversion.Up(&src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

// ConvertHubToMachineDrainRule converts a v1beta2 MachineDrainRule to v1beta1.
func ConvertHubToMachineDrainRule(ctx context.Context, src *clusterv1.MachineDrainRule, dst *MachineDrainRule, resolver conversion.APIVersionResolver) error {
	return machineDrainRuleConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

func selectorPtrUp(in *metav1.LabelSelector) *clusterv1.LabelSelector {
	if in == nil {
		return nil
	}
	out := selectorUp(*in)
	return &out
}

func selectorPtrDown(in *clusterv1.LabelSelector) *metav1.LabelSelector {
	if in == nil {
		return nil
	}
	out := selectorDown(*in)
	return &out
}
