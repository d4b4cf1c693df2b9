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

package v1alpha1

import (
	"context"

	"k8s.io/utils/ptr"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conversion"
)

// extensionConfigConversion maps field for field: v1alpha1's pointers become v1beta2's values
// (an empty string and an absent one mean the same to both), its old-style conditions are
// v1beta2's status.deprecated.v1beta1.conditions (as upstream stores them), and its
// status.v1beta2.conditions are v1beta2's status.conditions.
var extensionConfigConversion = conversion.KindConversion[ExtensionConfigSpec, ExtensionConfigStatus, runtimev1.ExtensionConfigSpec, runtimev1.ExtensionConfigStatus]{
	SpecUp: func(in *ExtensionConfigSpec, _ *runtimev1.ExtensionConfigSpec) (runtimev1.ExtensionConfigSpec, error) {
		out := runtimev1.ExtensionConfigSpec{NamespaceSelector: in.NamespaceSelector, Settings: in.Settings,
			ClientConfig: runtimev1.ClientConfig{URL: ptr.Deref(in.ClientConfig.URL, ""), CABundle: in.ClientConfig.CABundle}}
		if s := in.ClientConfig.Service; s != nil {
			out.ClientConfig.Service = &runtimev1.ServiceReference{Namespace: s.Namespace, Name: s.Name, Path: ptr.Deref(s.Path, ""), Port: s.Port}
		}
		return out, nil
	},
	SpecDown: func(_ context.Context, in *runtimev1.ExtensionConfigSpec, _ string, _ *ExtensionConfigSpec, _ conversion.APIVersionResolver) (ExtensionConfigSpec, error) {
		out := ExtensionConfigSpec{NamespaceSelector: in.NamespaceSelector, Settings: in.Settings,
			ClientConfig: ClientConfig{URL: nonEmpty(in.ClientConfig.URL), CABundle: in.ClientConfig.CABundle}}
		if s := in.ClientConfig.Service; s != nil {
			out.ClientConfig.Service = &ServiceReference{Namespace: s.Namespace, Name: s.Name, Path: nonEmpty(s.Path), Port: s.Port}
		}
		return out, nil
	},
	StatusUp: func(in *ExtensionConfigStatus, restored *runtimev1.ExtensionConfigStatus) runtimev1.ExtensionConfigStatus {
		out := runtimev1.ExtensionConfigStatus{}
		for _, h := range in.Handlers {
			out.Handlers = append(out.Handlers, runtimev1.ExtensionHandler{Name: h.Name, TimeoutSeconds: h.TimeoutSeconds,
				RequestHook:   runtimev1.GroupVersionHook{APIVersion: h.RequestHook.APIVersion, Hook: h.RequestHook.Hook},
				FailurePolicy: runtimev1.FailurePolicy(ptr.Deref(h.FailurePolicy, ""))})
		}
		if in.V1Beta2 != nil {
			out.Conditions = in.V1Beta2.Conditions
		}
		if len(in.Conditions) > 0 {
			out.Deprecated = &runtimev1.ExtensionConfigDeprecatedStatus{V1Beta1: &runtimev1.ExtensionConfigV1Beta1DeprecatedStatus{Conditions: in.Conditions}}
		} else if d := restored.Deprecated; d != nil && (d.V1Beta1 == nil || len(d.V1Beta1.Conditions) == 0) {
			out.Deprecated = d // an empty deprecated block v1alpha1 cannot show
		}
		return out
	},
	StatusDown: func(in *runtimev1.ExtensionConfigStatus) ExtensionConfigStatus {
		out := ExtensionConfigStatus{}
		for _, h := range in.Handlers {
			var policy *FailurePolicy
			if h.FailurePolicy != "" {
				policy = ptr.To(FailurePolicy(h.FailurePolicy))
			}
			out.Handlers = append(out.Handlers, ExtensionHandler{Name: h.Name, TimeoutSeconds: h.TimeoutSeconds,
				RequestHook: GroupVersionHook{APIVersion: h.RequestHook.APIVersion, Hook: h.RequestHook.Hook}, FailurePolicy: policy})
		}
		if len(in.Conditions) > 0 {
			out.V1Beta2 = &ExtensionConfigV1Beta2Status{Conditions: in.Conditions}
		}
		if in.Deprecated != nil && in.Deprecated.V1Beta1 != nil {
			out.Conditions = in.Deprecated.V1Beta1.Conditions
		}
		return out
	},
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ConvertExtensionConfigToHub converts a v1alpha1 ExtensionConfig to v1beta2.
func ConvertExtensionConfigToHub(_ context.Context, src *ExtensionConfig, dst *runtimev1.ExtensionConfig) error {
	return extensionConfigConversion.Up(&src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}

// ConvertHubToExtensionConfig converts a v1beta2 ExtensionConfig to v1alpha1.
func ConvertHubToExtensionConfig(ctx context.Context, src *runtimev1.ExtensionConfig, dst *ExtensionConfig, resolver conversion.APIVersionResolver) error {
	return extensionConfigConversion.Down(ctx, resolver, &src.ObjectMeta, &src.Spec, &src.Status, &dst.ObjectMeta, &dst.Spec, &dst.Status)
}
