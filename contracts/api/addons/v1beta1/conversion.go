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
	"k8s.io/utils/ptr"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

var clusterResourceSetConversion = conversion.KindConversion[ClusterResourceSetSpec, ClusterResourceSetStatus, addonsv1.ClusterResourceSetSpec, addonsv1.ClusterResourceSetStatus]{
	SpecUp: func(in *ClusterResourceSetSpec, _ *addonsv1.ClusterResourceSetSpec) (addonsv1.ClusterResourceSetSpec, error) {
		out := addonsv1.ClusterResourceSetSpec{ClusterSelector: clusterv1.LabelSelectorFromMetav1(in.ClusterSelector), Strategy: in.Strategy}
		for _, r := range in.Resources {
			out.Resources = append(out.Resources, addonsv1.ResourceRef{Name: r.Name, Kind: r.Kind})
		}
		return out, nil
	},
	SpecDown: func(_ context.Context, in *addonsv1.ClusterResourceSetSpec, _ string, _ *ClusterResourceSetSpec, _ conversion.APIVersionResolver) (ClusterResourceSetSpec, error) {
		out := ClusterResourceSetSpec{ClusterSelector: *in.ClusterSelector.ToMetav1(), Strategy: in.Strategy}
		for _, r := range in.Resources {
			out.Resources = append(out.Resources, ResourceRef{Name: r.Name, Kind: r.Kind})
		}
		return out, nil
	},
	StatusUp: func(in *ClusterResourceSetStatus, _ *addonsv1.ClusterResourceSetStatus) addonsv1.ClusterResourceSetStatus {
		out := addonsv1.ClusterResourceSetStatus{ObservedGeneration: in.ObservedGeneration}
		if in.V1Beta2 != nil {
			out.Conditions = in.V1Beta2.Conditions
		}
		return out
	},
	StatusDown: func(in *addonsv1.ClusterResourceSetStatus) ClusterResourceSetStatus {
		out := ClusterResourceSetStatus{ObservedGeneration: in.ObservedGeneration}
		if len(in.Conditions) > 0 {
			out.V1Beta2 = &ClusterResourceSetV1Beta2Status{Conditions: in.Conditions}
		}
		return out
	},
	Derived: clusterv1beta1.DerivedConditions(func(s *ClusterResourceSetStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *addonsv1.ClusterResourceSetStatus) []metav1.Condition { return s.Conditions },
		clusterv1beta1.DerivedCondition{Type: "ResourcesApplied", From: addonsv1.ClusterResourceSetResourcesAppliedCondition}),
}

// ConvertClusterResourceSetToHub converts a v1beta1 ClusterResourceSet to v1beta2.
func ConvertClusterResourceSetToHub(_ context.Context, src *ClusterResourceSet, dst *addonsv1.ClusterResourceSet) error {
	return clusterResourceSetConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToClusterResourceSet converts a v1beta2 ClusterResourceSet to v1beta1.
func ConvertHubToClusterResourceSet(ctx context.Context, src *addonsv1.ClusterResourceSet, dst *ClusterResourceSet, resolver conversion.APIVersionResolver) error {
	return clusterResourceSetConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

var clusterResourceSetBindingConversion = conversion.SpecOnly(
	func(in *ClusterResourceSetBindingSpec, restored *addonsv1.ClusterResourceSetBindingSpec) (addonsv1.ClusterResourceSetBindingSpec, error) {
		out := addonsv1.ClusterResourceSetBindingSpec{ClusterName: in.ClusterName}
		for i, b := range in.Bindings {
			if b == nil {
				continue
			}
			var was []addonsv1.ResourceBinding
			if i < len(restored.Bindings) && restored.Bindings[i].ClusterResourceSetName == b.ClusterResourceSetName {
				was = restored.Bindings[i].Resources
			}
			out.Bindings = append(out.Bindings, addonsv1.ResourceSetBinding{ClusterResourceSetName: b.ClusterResourceSetName, Resources: resourceBindingsUp(b.Resources, was)})
		}
		return out, nil
	},
	func(_ context.Context, in *addonsv1.ClusterResourceSetBindingSpec, _ string, _ *ClusterResourceSetBindingSpec, _ conversion.APIVersionResolver) (ClusterResourceSetBindingSpec, error) {
		out := ClusterResourceSetBindingSpec{ClusterName: in.ClusterName}
		for _, b := range in.Bindings {
			down := &ResourceSetBinding{ClusterResourceSetName: b.ClusterResourceSetName}
			for _, r := range b.Resources {
				down.Resources = append(down.Resources, ResourceBinding{ResourceRef: ResourceRef{Name: r.Name, Kind: r.Kind},
					Hash: r.Hash, LastAppliedTime: conversion.TimeToPtr(r.LastAppliedTime), Applied: ptr.Deref(r.Applied, false)})
			}
			out.Bindings = append(out.Bindings, down)
		}
		return out, nil
	},
)

// resourceBindingsUp always sets applied (v1beta2 requires it), unless the v1beta2 entry
// recorded at that place had it unset and the v1beta1 one is false.
func resourceBindingsUp(in []ResourceBinding, was []addonsv1.ResourceBinding) []addonsv1.ResourceBinding {
	var out []addonsv1.ResourceBinding
	for i, r := range in {
		applied := ptr.To(r.Applied)
		if i < len(was) && was[i].Name == r.Name && was[i].Applied == nil && !r.Applied {
			applied = nil
		}
		out = append(out, addonsv1.ResourceBinding{ResourceRef: addonsv1.ResourceRef{Name: r.Name, Kind: r.Kind},
			Hash: r.Hash, LastAppliedTime: conversion.TimeFromPtr(r.LastAppliedTime), Applied: applied})
	}
	return out
}

// ConvertClusterResourceSetBindingToHub converts a v1beta1 ClusterResourceSetBinding to v1beta2.
func ConvertClusterResourceSetBindingToHub(_ context.Context, src *ClusterResourceSetBinding, dst *addonsv1.ClusterResourceSetBinding) error {
	return clusterResourceSetBindingConversion.Up(&src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}

// ConvertHubToClusterResourceSetBinding converts a v1beta2 ClusterResourceSetBinding to v1beta1.
func ConvertHubToClusterResourceSetBinding(ctx context.Context, src *addonsv1.ClusterResourceSetBinding, dst *ClusterResourceSetBinding, resolver conversion.APIVersionResolver) error {
	return clusterResourceSetBindingConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &struct{}{}, &dst.ObjectMeta, &dst.Spec, &struct{}{})
}
