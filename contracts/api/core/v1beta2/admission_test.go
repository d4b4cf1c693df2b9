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
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// TestAdmission_RejectsInvalidObjects sends one invalid object per admission rule to the real
// apiserver and checks that it is refused with the rule's own message, so that users get an
// actionable error without any webhook running.
func TestAdmission_RejectsInvalidObjects(t *testing.T) {
	tests := []struct {
		name string
		obj  func(t *testing.T, ns string) client.Object
		// wantMessages must all appear in the apiserver's error.
		wantMessages []string
	}{
		{
			name: "MachineDeploymentSelectorNotMatchingTemplate",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Labels = map[string]string{"app": "api"}
				return md
			},
			wantMessages: []string{`spec.selector.matchLabels["app"] does not match spec.template.metadata.labels: a MachineDeployment template must carry every label of its selector, with the same value`},
		},
		{
			name: "MachineDeploymentSelectorKeyMissingFromTemplate",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Selector.MatchLabels["tier"] = "frontend"
				return md
			},
			wantMessages: []string{`spec.selector.matchLabels["tier"] does not match spec.template.metadata.labels`},
		},
		{
			name: "MachineDeploymentTemplateWithoutLabels",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Labels = nil
				md.Spec.Template.Annotations = map[string]string{"note": "no labels"}
				return md
			},
			wantMessages: []string{`spec.selector.matchLabels["app"] does not match spec.template.metadata.labels`},
		},
		{
			name: "MachineSetSelectorNotMatchingTemplate",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Template.Labels = map[string]string{"app": "web-v2"}
				return ms
			},
			wantMessages: []string{`spec.selector.matchLabels["app"] does not match spec.template.metadata.labels: a MachineSet template must carry every label of its selector, with the same value`},
		},
		{
			name: "MachineSetSelectorOperatorUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: "Equals", Values: []string{"web"}}}
				return ms
			},
			wantMessages: []string{"spec.selector.matchExpressions[0].operator", `Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`},
		},
		{
			name: "MachineSetSelectorInWithoutValues",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: clusterv1.LabelSelectorOpIn}}
				return ms
			},
			wantMessages: []string{"spec.selector.matchExpressions[0]", "operator In needs at least one value in values"},
		},
		{
			name: "MachineDeploymentSelectorExistsWithValues",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: clusterv1.LabelSelectorOpExists, Values: []string{"web"}}}
				return md
			},
			wantMessages: []string{"spec.selector.matchExpressions[0]", "operator Exists takes no values: remove values"},
		},
		{
			name: "MachineSetSelectorInNotSatisfiedByTemplate",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: clusterv1.LabelSelectorOpIn, Values: []string{"api", "db"}}}
				return ms
			},
			wantMessages: []string{"spec.selector.matchExpressions: Invalid value", "must all be satisfied by spec.template.metadata.labels", "the MachineSet would not count the Machines it creates"},
		},
		{
			name: "MachineSetSelectorNotInExcludesTemplateValue",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: clusterv1.LabelSelectorOpNotIn, Values: []string{"web"}}}
				return ms
			},
			wantMessages: []string{"spec.selector.matchExpressions", "must all be satisfied by spec.template.metadata.labels"},
		},
		{
			name: "MachineDeploymentSelectorExistsKeyMissingFromTemplate",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "tier", Operator: clusterv1.LabelSelectorOpExists}}
				return md
			},
			wantMessages: []string{"spec.selector.matchExpressions", "the MachineDeployment would not count the Machines it creates"},
		},
		{
			name: "MachineDeploymentSelectorDoesNotExistKeyInTemplate",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: clusterv1.LabelSelectorOpDoesNotExist}}
				return md
			},
			wantMessages: []string{"spec.selector.matchExpressions", "for DoesNotExist it must lack it"},
		},
		{
			name: "MachineSetTemplateLabelValueInvalid",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Template.Labels["team"] = "a b"
				return ms
			},
			wantMessages: []string{`spec.template.metadata.labels[team]`, `"a b" is not a valid label value: use at most 63 letters, digits, dashes, underscores and dots`},
		},
		{
			name: "MachineDeploymentTemplateLabelValueTooLong",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Labels["team"] = strings.Repeat("a", 64)
				return md
			},
			wantMessages: []string{`spec.template.metadata.labels.team`, "Too long", "63"},
		},
		{
			name: "MachinePoolTemplateLabelValueInvalid",
			obj: func(_ *testing.T, ns string) client.Object {
				mp := newMachinePool(ns)
				mp.Spec.Template.Labels["team"] = "-leading-dash"
				return mp
			},
			wantMessages: []string{`spec.template.metadata.labels[team]`, "is not a valid label value"},
		},
		{
			name: "MachineSetSelectorLabelValueInvalid",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Selector.MatchLabels["app"] = "web/v2"
				ms.Spec.Template.Labels["app"] = "web/v2"
				return ms
			},
			wantMessages: []string{`spec.selector.matchLabels[app]`, "is not a valid label value"},
		},
		{
			name: "MachineSetDeletionEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newMachineSet(ns), map[string]any{}, "spec", "deletion")
			},
			wantMessages: []string{"spec.deletion", "is empty: set order, or leave it out"},
		},
		{
			name: "MachineHealthCheckRemediationTriggerIfEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newMachineHealthCheck(ns), map[string]any{}, "spec", "remediation", "triggerIf")
			},
			wantMessages: []string{"spec.remediation.triggerIf", "is empty: set at least one of unhealthyLessThanOrEqualTo or unhealthyInRange, or leave it out"},
		},
		{
			name: "ClusterControlPlaneEndpointEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newCluster(ns), map[string]any{}, "spec", "controlPlaneEndpoint")
			},
			wantMessages: []string{"spec.controlPlaneEndpoint", "is empty: set at least one of host or port, or leave it out"},
		},
		{
			name: "MachineHealthCheckEmptySelector",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newMachineHealthCheck(ns), map[string]any{}, "spec", "selector")
			},
			wantMessages: []string{"spec.selector", "it would select every Machine of the Cluster, the control plane included"},
		},
		{
			name: "MachineHealthCheckSelectorEmptyMatchLabels",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newMachineHealthCheck(ns), map[string]any{"matchLabels": map[string]any{}}, "spec", "selector")
			},
			wantMessages: []string{"spec.selector", "spec.selector is empty"},
		},
		{
			name: "MachineHealthCheckSelectorNamesAnotherCluster",
			obj: func(_ *testing.T, ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Selector.MatchLabels[clusterv1.ClusterNameLabel] = "c2"
				return mhc
			},
			wantMessages: []string{"spec.selector.matchLabels", `names another Cluster than spec.clusterName "c1"`},
		},
		{
			name: "MachineHealthCheckNodeStartupTimeoutTooShort",
			obj: func(_ *testing.T, ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](29)
				return mhc
			},
			wantMessages: []string{"spec.checks.nodeStartupTimeoutSeconds", "must be 0 (no node startup check) or at least 30"},
		},
		{
			name: "ClusterNameNotALabelValue",
			obj: func(_ *testing.T, ns string) client.Object {
				c := newCluster(ns)
				c.Name = strings.Repeat("c", 64)
				return c
			},
			wantMessages: []string{"metadata.name is longer than 63 characters", "cluster.x-k8s.io/cluster-name label"},
		},
		{
			name: "ClusterSpecEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newCluster(ns), map[string]any{}, "spec")
			},
			wantMessages: []string{"spec: Invalid value", "spec says nothing that builds the cluster: set topology"},
		},
		{
			name: "ClusterInfrastructureRefAPIGroupWithVersion",
			obj: func(_ *testing.T, ns string) client.Object {
				c := newCluster(ns)
				c.Spec.InfrastructureRef.APIGroup = "infrastructure.cluster.x-k8s.io/v1beta2"
				return c
			},
			wantMessages: []string{"spec.infrastructureRef.apiGroup", "is not an API group: write the group without a version"},
		},
		{
			name: "MachineInfrastructureRefKindInvalid",
			obj: func(_ *testing.T, ns string) client.Object {
				m := newMachine(ns)
				m.Spec.InfrastructureRef.Kind = "Dev Machine"
				return m
			},
			wantMessages: []string{"spec.infrastructureRef.kind", `kind "Dev Machine" is not a kind`},
		},
		{
			name: "MachineInfrastructureRefNameInvalid",
			obj: func(_ *testing.T, ns string) client.Object {
				m := newMachine(ns)
				m.Spec.InfrastructureRef.Name = "M1"
				return m
			},
			wantMessages: []string{"spec.infrastructureRef.name", `name "M1" is not an object name: use lowercase letters`},
		},
		{
			name: "MachineDeploymentTemplateClusterNameDiffers",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Spec.ClusterName = "c2"
				return md
			},
			wantMessages: []string{`spec.template.spec.clusterName "c2" differs from spec.clusterName "c1"`},
		},
		{
			name: "MachineDeploymentRollingUpdateZeroSurgeAndZeroUnavailable",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Rollout.Strategy.RollingUpdate = clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge:       ptr.To(intstr.FromInt32(0)),
					MaxUnavailable: ptr.To(intstr.FromInt32(0)),
				}
				return md
			},
			wantMessages: []string{"spec.rollout.strategy.rollingUpdate", "maxSurge and maxUnavailable cannot both be 0"},
		},
		{
			name: "MachineDeploymentRollingUpdateZeroPercentSurgeAndUnavailable",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Rollout.Strategy.RollingUpdate = clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge:       ptr.To(intstr.FromString("0%")),
					MaxUnavailable: ptr.To(intstr.FromString("0%")),
				}
				return md
			},
			wantMessages: []string{"maxSurge and maxUnavailable cannot both be 0"},
		},
		{
			// maxUnavailable defaults to 0, so a lone maxSurge of 0 would stall every rollout.
			name: "MachineDeploymentRollingUpdateZeroSurgeWithDefaultUnavailable",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Rollout.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
				return md
			},
			wantMessages: []string{"maxSurge and maxUnavailable cannot both be 0"},
		},
		{
			name: "MachineDeploymentMaxSurgeNotANumberOrPercent",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Rollout.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("one"))
				return md
			},
			wantMessages: []string{"spec.rollout.strategy.rollingUpdate.maxSurge", "maxSurge must be a non-negative number of Machines (e.g. 1) or a percentage of replicas (e.g. 10%)"},
		},
		{
			name: "MachineDeploymentMaxInFlightZero",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Remediation.MaxInFlight = ptr.To(intstr.FromInt32(0))
				return md
			},
			wantMessages: []string{"maxInFlight must be a positive number of Machines"},
		},
		{
			name: "MachineDeploymentDeletionOrderUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Deletion.Order = "Largest"
				return md
			},
			wantMessages: []string{"spec.deletion.order", `Unsupported value: "Largest": supported values: "Random", "Newest", "Oldest"`},
		},
		{
			name: "MachineSetDeletionOrderUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Deletion.Order = "random"
				return ms
			},
			wantMessages: []string{"spec.deletion.order", `Unsupported value: "random": supported values: "Random", "Newest", "Oldest"`},
		},
		{
			name: "MachineSetMachineNamingWithoutRandom",
			obj: func(_ *testing.T, ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.MachineNaming.Template = "{{ .machineSet.name }}-worker"
				return ms
			},
			wantMessages: []string{"spec.machineNaming.template", "template must contain {{ .random }}"},
		},
		{
			// "1.37.2" gets its "v" at admission (TestDefaulting_*); "1.37" is no version either way.
			name: "MachineVersionWithoutLeadingVOrPatch",
			obj: func(_ *testing.T, ns string) client.Object {
				m := newMachine(ns)
				m.Spec.Version = "1.37"
				return m
			},
			wantMessages: []string{"spec.version", `version "1.37" is not a Kubernetes version: write it as vMAJOR.MINOR.PATCH, e.g. v1.37.2`},
		},
		{
			name: "MachineDeploymentTemplateVersionWithoutPatch",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Spec.Version = "v1.37"
				return md
			},
			wantMessages: []string{"spec.template.spec.version", `version "v1.37" is not a Kubernetes version`},
		},
		{
			name: "MachinePoolTemplateVersionMalformed",
			obj: func(_ *testing.T, ns string) client.Object {
				mp := newMachinePool(ns)
				mp.Spec.Template.Spec.Version = "latest"
				return mp
			},
			wantMessages: []string{"spec.template.spec.version", `version "latest" is not a Kubernetes version`},
		},
		{
			name: "MachineBootstrapWithNeitherConfigRefNorDataSecretName",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newMachine(ns), map[string]any{}, "spec", "bootstrap")
			},
			wantMessages: []string{"spec.bootstrap", "bootstrap needs configRef (a bootstrap provider object such as a KubeadmConfig) or dataSecretName"},
		},
		{
			name: "MachineInfrastructureRefWithoutKind",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newMachine(ns), map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "name": "m1"}, "spec", "infrastructureRef")
			},
			wantMessages: []string{"spec.infrastructureRef.kind: Required value"},
		},
		{
			name: "MachineClusterNameTooLong",
			obj: func(_ *testing.T, ns string) client.Object {
				m := newMachine(ns)
				m.Spec.ClusterName = "c-0123456789012345678901234567890123456789012345678901234567890123"
				return m
			},
			wantMessages: []string{"spec.clusterName", "Too long", "63"},
		},
		{
			name: "MachineHealthCheckUnhealthyInRangeWithoutBrackets",
			obj: func(_ *testing.T, ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Remediation.TriggerIf.UnhealthyInRange = "3-5"
				return mhc
			},
			wantMessages: []string{"spec.remediation.triggerIf.unhealthyInRange", `unhealthyInRange "3-5" is not a range: write it as "[min-max]"`},
		},
		{
			name: "MachineHealthCheckUnhealthyInRangeMinAboveMax",
			obj: func(_ *testing.T, ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Remediation.TriggerIf.UnhealthyInRange = "[5-3]"
				return mhc
			},
			wantMessages: []string{`unhealthyInRange "[5-3]" has its minimum above its maximum: write the smaller number first`},
		},
		{
			name: "MachineHealthCheckUnhealthyLessThanOrEqualToAboveHundredPercent",
			obj: func(_ *testing.T, ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Remediation.TriggerIf.UnhealthyLessThanOrEqualTo = ptr.To(intstr.FromString("150%"))
				return mhc
			},
			wantMessages: []string{"spec.remediation.triggerIf.unhealthyLessThanOrEqualTo", "must be a non-negative number of Machines (e.g. 2) or a percentage from 0% to 100%"},
		},
		{
			name: "MachineHealthCheckUnhealthyMachineConditionOnReady",
			obj: func(_ *testing.T, ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Checks.UnhealthyMachineConditions = []clusterv1.UnhealthyMachineCondition{
					{Type: clusterv1.ReadyCondition, Status: "False", TimeoutSeconds: ptr.To[int32](60)},
				}
				return mhc
			},
			wantMessages: []string{"type must not be Ready, Available, HealthCheckSucceeded, OwnerRemediated or ExternallyRemediated"},
		},
		{
			name: "MachineDeploymentTemplateWithMoreThan64Labels",
			obj: func(_ *testing.T, ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Labels = manyLabels(65)
				return md
			},
			wantMessages: []string{"spec.template.metadata.labels", "must have at most 64 items"},
		},
		{
			name: "ClusterPodCIDRWithoutPrefixLength",
			obj: func(_ *testing.T, ns string) client.Object {
				c := newCluster(ns)
				c.Spec.ClusterNetwork.Pods.CIDRBlocks = []string{"10.244.0.0/16", "10.245.0.0"}
				return c
			},
			wantMessages: []string{"spec.clusterNetwork.pods.cidrBlocks", `cidrBlocks entry "10.245.0.0" is not a CIDR`},
		},
		{
			name: "ClusterControlPlaneEndpointPortOutOfRange",
			obj: func(_ *testing.T, ns string) client.Object {
				c := newCluster(ns)
				c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "10.0.0.10", Port: 70000}
				return c
			},
			wantMessages: []string{"spec.controlPlaneEndpoint.port", "65535"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireInvalid(t, tt.obj(t, env.CreateNamespace(t, "admission")), tt.wantMessages...)
		})
	}
}

// TestAdmission_AcceptsValuesAtTheEdgeOfEachRule guards against rules that are stricter than
// intended: each object sits just inside a rule that TestAdmission_RejectsInvalidObjects exercises.
func TestAdmission_AcceptsValuesAtTheEdgeOfEachRule(t *testing.T) {
	tests := []struct {
		name string
		obj  func(ns string) client.Object
	}{
		{
			name: "MachineDeploymentTemplateWithExtraLabels",
			obj: func(ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Labels["extra"] = "yes"
				return md
			},
		},
		{
			// The largest template the schema allows, selected label by label: the rule must stay
			// within the apiserver's runtime CEL budget too.
			name: "MachineDeploymentSelectingAll64TemplateLabels",
			obj: func(ns string) client.Object {
				md := newMachineDeployment(ns)
				// 63 and the cluster-name label, which admission would add.
				md.Spec.Template.Labels = manyLabels(63)
				md.Spec.Template.Labels[clusterv1.ClusterNameLabel] = clusterName
				md.Spec.Selector.MatchLabels = maps.Clone(md.Spec.Template.Labels)
				return md
			},
		},
		{
			name: "MachineDeploymentZeroSurgeWithPercentUnavailable",
			obj: func(ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Rollout.Strategy.RollingUpdate = clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge:       ptr.To(intstr.FromString("0%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%")),
				}
				return md
			},
		},
		{
			name: "MachineDeploymentSelectorWithOnlyMatchExpressions",
			obj: func(ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Selector.MatchLabels = nil
				md.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{{Key: "app", Operator: clusterv1.LabelSelectorOpExists}}
				return md
			},
		},
		{
			name: "MachineWithPreReleaseVersionAndConfigRef",
			obj: func(ns string) client.Object {
				m := newMachine(ns)
				m.Spec.Version = "v1.38.0-rc.1+build.5"
				m.Spec.Bootstrap = clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "m1",
				}}
				return m
			},
		},
		{
			name: "MachineHealthCheckRangeWithEqualBoundsAndHundredPercent",
			obj: func(ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Remediation.TriggerIf = clusterv1.MachineHealthCheckRemediationTriggerIf{
					UnhealthyInRange:           "[3-3]",
					UnhealthyLessThanOrEqualTo: ptr.To(intstr.FromString("100%")),
				}
				return mhc
			},
		},
		{
			name: "MachineSetSelectorExpressionsSatisfiedByTemplate",
			obj: func(ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.Template.Labels["tier"] = "frontend"
				ms.Spec.Selector.MatchExpressions = []clusterv1.LabelSelectorRequirement{
					{Key: "app", Operator: clusterv1.LabelSelectorOpIn, Values: []string{"api", "web"}},
					{Key: "tier", Operator: clusterv1.LabelSelectorOpNotIn, Values: []string{"backend"}},
					{Key: "zone", Operator: clusterv1.LabelSelectorOpNotIn, Values: []string{"a"}},
					{Key: "tier", Operator: clusterv1.LabelSelectorOpExists},
					{Key: "legacy", Operator: clusterv1.LabelSelectorOpDoesNotExist},
				}
				return ms
			},
		},
		{
			name: "MachineDeploymentTemplateLabelValuesAtTheEdge",
			obj: func(ns string) client.Object {
				md := newMachineDeployment(ns)
				md.Spec.Template.Labels["empty"] = ""
				md.Spec.Template.Labels["dotted"] = "a-b_c.D9"
				md.Spec.Template.Labels["long"] = strings.Repeat("x", 63)
				return md
			},
		},
		{
			name: "MachineHealthCheckSelectorWithOwnClusterNameAndDisabledStartupTimeout",
			obj: func(ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Selector.MatchLabels[clusterv1.ClusterNameLabel] = clusterName
				mhc.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](0)
				return mhc
			},
		},
		{
			name: "MachineHealthCheckOnlyMatchExpressionsAndStartupTimeout30",
			obj: func(ns string) client.Object {
				mhc := newMachineHealthCheck(ns)
				mhc.Spec.Selector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
				mhc.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](30)
				return mhc
			},
		},
		{
			name: "ClusterNameOf63Characters",
			obj: func(ns string) client.Object {
				c := newCluster(ns)
				c.Name = strings.Repeat("c", 63)
				return c
			},
		},
		{
			// Refs are not required (ClusterClass will come with that rule): a Cluster with only a
			// network is accepted.
			name: "ClusterWithOnlyAControlPlaneRef",
			obj: func(ns string) client.Object {
				c := newCluster(ns)
				c.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{}
				c.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{
					APIGroup: "controlplane.cluster.x-k8s.io", Kind: "ManagedControlPlane", Name: "cp"}
				return c
			},
		},
		{
			name: "MachineSetMachineNamingWithRandom",
			obj: func(ns string) client.Object {
				ms := newMachineSet(ns)
				ms.Spec.MachineNaming.Template = "{{ .cluster.name }}-{{ .random }}"
				return ms
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.CreateNamespace(t, "admission-ok")
			require.NoError(t, env.Client.Create(context.Background(), tt.obj(ns)))
		})
	}
}

// TestAdmission_RejectsClusterNameChange checks that spec.clusterName is immutable on every kind that
// has it: moving an object to another Cluster would orphan what it created for the first one.
func TestAdmission_RejectsClusterNameChange(t *testing.T) {
	tests := []struct {
		name   string
		obj    func(ns string) client.Object
		rename func(obj client.Object)
		// wantMessage names the kind, so the user knows which object refused the change.
		wantMessage string
	}{
		{
			name:        "Machine",
			obj:         func(ns string) client.Object { return newMachine(ns) },
			rename:      func(o client.Object) { o.(*clusterv1.Machine).Spec.ClusterName = "c2" },
			wantMessage: `spec.clusterName: Invalid value: "c2": clusterName is immutable (it was "c1"): a Machine cannot move to another Cluster`,
		},
		{
			name: "MachineSet",
			obj:  func(ns string) client.Object { return newMachineSet(ns) },
			rename: func(o client.Object) {
				ms := o.(*clusterv1.MachineSet)
				ms.Spec.ClusterName, ms.Spec.Template.Spec.ClusterName = "c2", "c2"
			},
			wantMessage: `clusterName is immutable (it was "c1"): a MachineSet cannot move to another Cluster`,
		},
		{
			name: "MachineDeployment",
			obj:  func(ns string) client.Object { return newMachineDeployment(ns) },
			rename: func(o client.Object) {
				md := o.(*clusterv1.MachineDeployment)
				md.Spec.ClusterName, md.Spec.Template.Spec.ClusterName = "c2", "c2"
			},
			wantMessage: `clusterName is immutable (it was "c1"): a MachineDeployment cannot move to another Cluster`,
		},
		{
			name:        "MachineHealthCheck",
			obj:         func(ns string) client.Object { return newMachineHealthCheck(ns) },
			rename:      func(o client.Object) { o.(*clusterv1.MachineHealthCheck).Spec.ClusterName = "c2" },
			wantMessage: `clusterName is immutable (it was "c1"): a MachineHealthCheck cannot move to another Cluster`,
		},
		{
			name: "MachinePool",
			obj:  func(ns string) client.Object { return newMachinePool(ns) },
			rename: func(o client.Object) {
				mp := o.(*clusterv1.MachinePool)
				mp.Spec.ClusterName, mp.Spec.Template.Spec.ClusterName = "c2", "c2"
			},
			wantMessage: `clusterName is immutable (it was "c1"): a MachinePool cannot move to another Cluster`,
		},
		{
			// The template's clusterName is a MachineSpec too; its own rule keeps it from drifting.
			name: "MachineDeploymentTemplateOnly",
			obj:  func(ns string) client.Object { return newMachineDeployment(ns) },
			rename: func(o client.Object) {
				o.(*clusterv1.MachineDeployment).Spec.Template.Spec.ClusterName = "c2"
			},
			wantMessage: `spec.template.spec.clusterName: Invalid value: "c2": clusterName is immutable (it was "c1")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ns := env.CreateNamespace(t, "immutable")
			obj := tt.obj(ns)
			require.NoError(t, env.Client.Create(ctx, obj))

			// Another field can still change: only clusterName is frozen.
			obj.SetLabels(map[string]string{"touched": "true"})
			require.NoError(t, env.Client.Update(ctx, obj))

			tt.rename(obj)
			err := env.Client.Update(ctx, obj)
			require.Error(t, err, "the apiserver accepted a clusterName change")
			require.Truef(t, apierrors.IsInvalid(err), "want an Invalid error, got %v", err)
			require.Contains(t, err.Error(), tt.wantMessage)
		})
	}
}

// TestAdmission_ClusterRefsCanChangeButNotBeRemoved follows upstream's Cluster webhook: once set,
// spec.infrastructureRef and spec.controlPlaneRef may point elsewhere but not disappear, and a
// Cluster created without one of them may still get it later.
func TestAdmission_ClusterRefsCanChangeButNotBeRemoved(t *testing.T) {
	for _, field := range []string{"infrastructureRef", "controlPlaneRef"} {
		t.Run(field, func(t *testing.T) {
			ctx := context.Background()
			c := newCluster(env.CreateNamespace(t, "refs"))
			if field == "infrastructureRef" { // a Cluster needs one ref (or a topology): start with the other
				c.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{}
				c.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{
					APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: "cp"}
			}
			require.NoError(t, env.Client.Create(ctx, c), "a Cluster with one ref is accepted")

			ref := func(name string) *clusterv1.ContractVersionedObjectReference {
				if field == "infrastructureRef" {
					c.Spec.InfrastructureRef = infraRef("DevCluster", name)
					return &c.Spec.InfrastructureRef
				}
				c.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{
					APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: name,
				}
				return &c.Spec.ControlPlaneRef
			}
			ref("first")
			require.NoError(t, env.Client.Update(ctx, c), "setting the ref on an existing Cluster is accepted")
			ref("second")
			require.NoError(t, env.Client.Update(ctx, c), "pointing the ref elsewhere is accepted")

			*ref("second") = clusterv1.ContractVersionedObjectReference{}
			err := env.Client.Update(ctx, c)
			require.Error(t, err, "the apiserver accepted removing spec.%s", field)
			require.Truef(t, apierrors.IsInvalid(err), "want an Invalid error, got %v", err)
			require.Contains(t, err.Error(), "spec."+field+": Invalid value")
			require.Contains(t, err.Error(), "spec."+field+" cannot be removed from an existing Cluster")
		})
	}
}

// manyLabels returns n distinct labels with values of the longest allowed length (63 characters).
func manyLabels(n int) map[string]string {
	labels := make(map[string]string, n)
	for i := range n {
		labels[fmt.Sprintf("label-%02d", i)] = strings.Repeat("v", 63)
	}
	return labels
}
