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
	"bytes"
	"context"
	"encoding/json"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// The shared steps (the conversion-data annotation, and preferring what a v1beta1 client wrote
// while it still holds) are conversion.KindConversion's. Within a spec, keep restores v1beta2
// detail part by part: where the part recorded in the annotation reads at v1beta1 as the part
// the client sent does, the client changed nothing there that v1beta1 can say, so what v1beta1
// cannot say (false vs unset, list order, nil vs empty, the kubeadm timeouts it has no field
// for) is kept from the recorded part.

// keep returns restored when it converts down as the mapping of in does, else that mapping.
// Comparing the two down-conversions (rather than restored's with in itself) makes it blind to
// spellings v1beta1 has and v1beta2 does not (an empty patches: {}); comparing them as JSON makes
// it see exactly what a v1beta1 client can (an empty taints list is not a missing one).
func keep[S, H any](in S, restored H, down func(H, S) S, mapped func() H) H {
	m := mapped()
	a, errA := json.Marshal(down(restored, in))
	b, errB := json.Marshal(down(m, in))
	if errA == nil && errB == nil && bytes.Equal(a, b) {
		return restored
	}
	return m
}

// readsAsZero reports whether v reads at v1beta1 as its type's zero value does (so an empty list
// that is sent, such as taints: [], is not zero).
func readsAsZero[T any](v T) bool {
	var zero T
	a, errA := json.Marshal(v)
	b, errB := json.Marshal(zero)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// readsAsSame reports whether a and b are the same JSON.
func readsAsSame[T any](a, b T) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// ptrUnlessZero returns &v, or nil for a zero v (v1beta1's optional sub-structs).
func ptrUnlessZero[T any](v T) *T {
	if readsAsZero(v) {
		return nil
	}
	return &v
}

func deref[T any](p *T) T { return conversion.Deref(p) }

func argsUp(in map[string]string) []bootstrapv1.Arg {
	if len(in) == 0 {
		return nil
	}
	out := make([]bootstrapv1.Arg, 0, len(in))
	for name, value := range in {
		out = append(out, bootstrapv1.Arg{Name: name, Value: &value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// argsDown folds the list into a map; the v1beta2 schema refuses duplicate names.
func argsDown(in []bootstrapv1.Arg) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	for _, a := range in {
		out[a.Name] = deref(a.Value)
	}
	return out
}

func envsUp(in []bootstrapv1.EnvVar) *[]bootstrapv1.EnvVar {
	if in == nil {
		return nil
	}
	out := append([]bootstrapv1.EnvVar{}, in...)
	return &out
}

func envsDown(in *[]bootstrapv1.EnvVar) []bootstrapv1.EnvVar {
	if in == nil {
		return nil
	}
	return append([]bootstrapv1.EnvVar{}, (*in)...)
}

func stringsCopy(in []string) []string { return append([]string(nil), in...) }

var kubeadmConfigConversion = conversion.KindConversion[KubeadmConfigSpec, KubeadmConfigStatus, bootstrapv1.KubeadmConfigSpec, bootstrapv1.KubeadmConfigStatus]{
	SpecUp: func(in *KubeadmConfigSpec, restored *bootstrapv1.KubeadmConfigSpec) (bootstrapv1.KubeadmConfigSpec, error) {
		return KubeadmConfigSpecUp(in, restored), nil
	},
	SpecDown: func(_ context.Context, in *bootstrapv1.KubeadmConfigSpec, _ string, stored *KubeadmConfigSpec, _ conversion.APIVersionResolver) (KubeadmConfigSpec, error) {
		return KubeadmConfigSpecDown(in, stored), nil
	},
	StatusUp: func(in *KubeadmConfigStatus, restored *bootstrapv1.KubeadmConfigStatus) bootstrapv1.KubeadmConfigStatus {
		out := bootstrapv1.KubeadmConfigStatus{
			Initialization:     bootstrapv1.KubeadmConfigInitializationStatus{DataSecretCreated: conversion.BoolIntent(in.Ready, restored.Initialization.DataSecretCreated)},
			DataSecretName:     deref(in.DataSecretName),
			ObservedGeneration: in.ObservedGeneration,
		}
		if in.V1Beta2 != nil {
			out.Conditions = in.V1Beta2.Conditions
		}
		return out
	},
	StatusDown: func(in *bootstrapv1.KubeadmConfigStatus) KubeadmConfigStatus {
		out := KubeadmConfigStatus{
			Ready:              deref(in.Initialization.DataSecretCreated),
			DataSecretName:     conversion.NonZero(in.DataSecretName),
			ObservedGeneration: in.ObservedGeneration,
		}
		if len(in.Conditions) > 0 {
			out.V1Beta2 = &KubeadmConfigV1Beta2Status{Conditions: in.Conditions}
		}
		return out
	},
	Derived: clusterv1beta1.DerivedConditions(func(s *KubeadmConfigStatus) *clusterv1beta1.Conditions { return &s.Conditions },
		func(s *bootstrapv1.KubeadmConfigStatus) []metav1.Condition { return s.Conditions },
		clusterv1beta1.DerivedCondition{Type: clusterv1beta1.ReadyV1Beta1Condition, From: bootstrapv1.KubeadmConfigReadyCondition},
		clusterv1beta1.DerivedCondition{Type: "DataSecretAvailable", From: bootstrapv1.KubeadmConfigDataSecretAvailableCondition},
		clusterv1beta1.DerivedCondition{Type: "CertificatesAvailable", From: bootstrapv1.KubeadmConfigCertificatesAvailableCondition}),
}

// ConvertKubeadmConfigToHub converts a v1beta1 KubeadmConfig to v1beta2.
func ConvertKubeadmConfigToHub(_ context.Context, src *KubeadmConfig, dst *bootstrapv1.KubeadmConfig) error {
	return kubeadmConfigConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToKubeadmConfig converts a v1beta2 KubeadmConfig to v1beta1.
func ConvertHubToKubeadmConfig(ctx context.Context, src *bootstrapv1.KubeadmConfig, dst *KubeadmConfig, resolver conversion.APIVersionResolver) error {
	return kubeadmConfigConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// noStatus is the status of the template kinds, which have none.
type noStatus = struct{}

var kubeadmConfigTemplateConversion = conversion.KindConversion[KubeadmConfigTemplateSpec, noStatus, bootstrapv1.KubeadmConfigTemplateSpec, noStatus]{
	SpecUp: func(in *KubeadmConfigTemplateSpec, restored *bootstrapv1.KubeadmConfigTemplateSpec) (bootstrapv1.KubeadmConfigTemplateSpec, error) {
		return bootstrapv1.KubeadmConfigTemplateSpec{Template: bootstrapv1.KubeadmConfigTemplateResource{
			ObjectMeta: TemplateMetaUp(in.Template.ObjectMeta),
			Spec:       KubeadmConfigSpecUp(&in.Template.Spec, &restored.Template.Spec),
		}}, nil
	},
	SpecDown: func(_ context.Context, in *bootstrapv1.KubeadmConfigTemplateSpec, _ string, stored *KubeadmConfigTemplateSpec, _ conversion.APIVersionResolver) (KubeadmConfigTemplateSpec, error) {
		var storedSpec *KubeadmConfigSpec
		if stored != nil {
			storedSpec = &stored.Template.Spec
		}
		return KubeadmConfigTemplateSpec{Template: KubeadmConfigTemplateResource{
			ObjectMeta: TemplateMetaDown(in.Template.ObjectMeta),
			Spec:       KubeadmConfigSpecDown(&in.Template.Spec, storedSpec),
		}}, nil
	},
	StatusUp:   func(*noStatus, *noStatus) noStatus { return noStatus{} },
	StatusDown: func(*noStatus) noStatus { return noStatus{} },
}

// ConvertKubeadmConfigTemplateToHub converts a v1beta1 KubeadmConfigTemplate to v1beta2.
func ConvertKubeadmConfigTemplateToHub(_ context.Context, src *KubeadmConfigTemplate, dst *bootstrapv1.KubeadmConfigTemplate) error {
	return kubeadmConfigTemplateConversion.Up(&src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// ConvertHubToKubeadmConfigTemplate converts a v1beta2 KubeadmConfigTemplate to v1beta1.
func ConvertHubToKubeadmConfigTemplate(ctx context.Context, src *bootstrapv1.KubeadmConfigTemplate, dst *KubeadmConfigTemplate,
	resolver conversion.APIVersionResolver) error {
	return kubeadmConfigTemplateConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &noStatus{}, &dst.ObjectMeta, &dst.Spec, &noStatus{})
}

// TemplateMetaUp converts a template's metadata (labels and annotations).
func TemplateMetaUp(in clusterv1beta1.ObjectMeta) clusterv1.ObjectMeta {
	c := in.DeepCopy()
	return clusterv1.ObjectMeta{Labels: c.Labels, Annotations: c.Annotations}
}

// TemplateMetaDown converts a template's metadata (labels and annotations).
func TemplateMetaDown(in clusterv1.ObjectMeta) clusterv1beta1.ObjectMeta {
	c := in.DeepCopy()
	return clusterv1beta1.ObjectMeta{Labels: c.Labels, Annotations: c.Annotations}
}
