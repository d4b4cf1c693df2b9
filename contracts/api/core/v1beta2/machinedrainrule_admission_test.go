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

package v1beta2_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func newMachineDrainRule(ns string, behavior clusterv1.MachineDrainRuleDrainBehavior) *clusterv1.MachineDrainRule {
	return &clusterv1.MachineDrainRule{
		ObjectMeta: metav1.ObjectMeta{Name: "rule", Namespace: ns},
		Spec:       clusterv1.MachineDrainRuleSpec{Drain: clusterv1.MachineDrainRuleDrainConfig{Behavior: behavior}},
	}
}

// TestMachineDrainRuleAdmission_RejectsWhatUpstreamsWebhookRejects sends the rules upstream's
// validating webhook refuses (order without Drain, invalid selectors) and the schema's own limits
// to the real apiserver: each is refused naming the field.
func TestMachineDrainRuleAdmission_RejectsWhatUpstreamsWebhookRejects(t *testing.T) {
	app := &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	tests := []struct {
		name         string
		mutate       func(r *clusterv1.MachineDrainRule)
		wantMessages []string
	}{
		{"OrderWithSkip", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Drain.Behavior = clusterv1.MachineDrainRuleDrainBehaviorSkip
			r.Spec.Drain.Order = ptr.To[int32](5)
		}, []string{"spec.drain.order", `order must not be set if drain behavior is "Skip" or "WaitCompleted"`}},
		{"OrderWithWaitCompleted", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Drain.Behavior = clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted
			r.Spec.Drain.Order = ptr.To[int32](0)
		}, []string{"spec.drain.order", "order must not be set"}},
		{"UnknownBehavior", func(r *clusterv1.MachineDrainRule) { r.Spec.Drain.Behavior = "Evict" },
			[]string{"spec.drain.behavior", `supported values: "Drain", "Skip", "WaitCompleted"`}},
		{"MissingBehavior", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Drain.Behavior = ""
			r.Spec.Pods = []clusterv1.MachineDrainRulePodSelector{{Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
		}, []string{"spec.drain: Required value"}},
		{"EmptyMachineSelectorEntry", func(r *clusterv1.MachineDrainRule) { r.Spec.Machines = []clusterv1.MachineDrainRuleMachineSelector{{}} },
			[]string{"spec.machines[0]", "should have at least 1 properties"}},
		{"DuplicatePodSelectors", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Pods = []clusterv1.MachineDrainRulePodSelector{{Selector: app}, {Selector: app}}
		}, []string{"spec.pods", "entries in pods must be unique"}},
		{"DuplicateMachineSelectors", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Machines = []clusterv1.MachineDrainRuleMachineSelector{{ClusterSelector: app}, {ClusterSelector: app}}
		}, []string{"spec.machines", "entries in machines must be unique"}},
		{"TooManyPodSelectors", func(r *clusterv1.MachineDrainRule) {
			for i := range 33 {
				r.Spec.Pods = append(r.Spec.Pods, clusterv1.MachineDrainRulePodSelector{
					Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("a%d", i)}}})
			}
		}, []string{"spec.pods", "must have at most 32 items"}},
		{"SelectorOperatorUnknown", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Pods = []clusterv1.MachineDrainRulePodSelector{{NamespaceSelector: &clusterv1.LabelSelector{
				MatchExpressions: []clusterv1.LabelSelectorRequirement{{Key: "team", Operator: "Equals", Values: []string{"a"}}}}}}
		}, []string{"spec.pods[0].namespaceSelector.matchExpressions[0].operator", `Unsupported value: "Equals"`}},
		{"SelectorInWithoutValues", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Machines = []clusterv1.MachineDrainRuleMachineSelector{{Selector: &clusterv1.LabelSelector{
				MatchExpressions: []clusterv1.LabelSelectorRequirement{{Key: "os", Operator: clusterv1.LabelSelectorOpIn}}}}}
		}, []string{"spec.machines[0].selector.matchExpressions[0]", "operator In needs at least one value in values"}},
		{"SelectorLabelValueInvalid", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Pods = []clusterv1.MachineDrainRulePodSelector{{Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": "-db"}}}}
		}, []string{"spec.pods[0].selector.matchLabels[app]", "is not a valid label value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newMachineDrainRule(env.CreateNamespace(t, "mdr"), clusterv1.MachineDrainRuleDrainBehaviorDrain)
			tt.mutate(r)
			env.RequireInvalid(t, r, tt.wantMessages...)
		})
	}
}

// TestMachineDrainRuleAdmission_AcceptsUpstreamsExamples accepts the rules of upstream's
// documentation, a negative order, and the largest selector lists the schema allows (the
// uniqueness rules must stay within the CEL budget).
func TestMachineDrainRuleAdmission_AcceptsUpstreamsExamples(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(r *clusterv1.MachineDrainRule)
	}{
		{"DrainWithNegativeOrder", func(r *clusterv1.MachineDrainRule) { r.Spec.Drain.Order = ptr.To[int32](-2147483648) }},
		{"SkipWithoutSelectors", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Drain.Behavior = clusterv1.MachineDrainRuleDrainBehaviorSkip
		}},
		{"WaitCompletedForControlPlaneMachinesOfProduction", func(r *clusterv1.MachineDrainRule) {
			r.Spec.Drain.Behavior = clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted
			r.Spec.Machines = []clusterv1.MachineDrainRuleMachineSelector{
				{Selector: &clusterv1.LabelSelector{MatchExpressions: []clusterv1.LabelSelectorRequirement{{Key: clusterv1.MachineControlPlaneLabel, Operator: clusterv1.LabelSelectorOpExists}}}},
				{Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"os": "linux"}},
					ClusterSelector: &clusterv1.LabelSelector{MatchExpressions: []clusterv1.LabelSelectorRequirement{{Key: "stage", Operator: clusterv1.LabelSelectorOpIn, Values: []string{"production"}}}}},
			}
			r.Spec.Pods = []clusterv1.MachineDrainRulePodSelector{
				{Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": "prometheus"}},
					NamespaceSelector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"}}},
			}
		}},
		{"ThirtyTwoPodSelectors", func(r *clusterv1.MachineDrainRule) {
			for i := range 32 {
				r.Spec.Pods = append(r.Spec.Pods, clusterv1.MachineDrainRulePodSelector{
					Selector: &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("a%d", i)}}})
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newMachineDrainRule(env.CreateNamespace(t, "mdr-ok"), clusterv1.MachineDrainRuleDrainBehaviorDrain)
			tt.mutate(r)
			require.NoError(t, env.Client.Create(context.Background(), r))
		})
	}
}
