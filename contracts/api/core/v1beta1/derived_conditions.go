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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"capstan.dev/contracts/conversion"
)

// Severities of a v1beta1 condition that is False, as upstream's v1beta1 defines them.
const (
	// ConditionSeverityError: something is wrong that will not resolve without action.
	ConditionSeverityError ConditionSeverity = "Error"
	// ConditionSeverityWarning: something is wrong, and may resolve by itself.
	ConditionSeverityWarning ConditionSeverity = "Warning"
	// ConditionSeverityInfo: not there yet, as expected (provisioning, waiting, deleting).
	ConditionSeverityInfo ConditionSeverity = "Info"
)

// ReadyV1Beta1Condition is the v1beta1 summary condition every kind had, the one
// `kubectl wait --for=condition=Ready` and upstream's v1beta1 tools read.
const ReadyV1Beta1Condition = "Ready"

// DerivedCondition is a v1beta1 condition type shown from the v1beta2 condition that carries the
// same meaning. It is conversion configuration, not an API type.
// +kubebuilder:object:generate=false
type DerivedCondition struct {
	// Type is the v1beta1 condition type.
	Type string
	// From is the v1beta2 condition type it is derived from.
	From string
}

// DeriveConditions is the v1beta1 list for v1beta2 conditions in: one condition per mapping
// whose v1beta2 condition is there, with its status, reason, message and transition time, and
// for False a severity (see Severity). Ready comes first, the others by type, as upstream's
// v1beta1 sorted them.
func DeriveConditions(in []metav1.Condition, mapping []DerivedCondition) Conditions {
	var out Conditions
	for _, m := range mapping {
		c := meta.FindStatusCondition(in, m.From)
		if c == nil {
			continue
		}
		d := Condition{Type: m.Type, Status: corev1.ConditionStatus(c.Status), LastTransitionTime: c.LastTransitionTime,
			Reason: c.Reason, Message: c.Message}
		if c.Status == metav1.ConditionFalse {
			d.Severity = Severity(c.Reason)
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := out[i].Type == ReadyV1Beta1Condition, out[j].Type == ReadyV1Beta1Condition; ri != rj {
			return ri
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// Severity is the v1beta1 severity of a False condition with a v1beta2 reason: Error for a
// failure that needs the user (a failed step, a time-out, an invalid or missing input), Info for
// a state on the way (waiting, provisioning, scaling, rolling out, deleting, paused), Warning for
// the rest (not ready, not healthy, unreachable: it may resolve by itself).
func Severity(reason string) ConditionSeverity {
	for _, s := range []string{"Failed", "Failure", "Error", "TimedOut", "Timeout", "Invalid", "NotFound", "Forbidden",
		"Duplicate", "Required", "Taken", "CannotBe"} {
		if strings.Contains(reason, s) {
			return ConditionSeverityError
		}
	}
	if strings.HasPrefix(reason, "Waiting") {
		return ConditionSeverityInfo
	}
	switch reason {
	case "Provisioning", "Bootstrapping", "Deleting", "DeletingNode", "DrainingNode", "MachineDeleting", "RollingOut",
		"ScalingUp", "ScalingDown", "Remediating", "NotInitialized", "NotProvisioned", "NoReplicas", "NoWorkers", "Paused",
		"ClusterUpgrading", "ControlPlaneUpgradePending":
		return ConditionSeverityInfo
	}
	return ConditionSeverityWarning
}

// DerivedConditions is the conversion.StatusDerivation of a kind whose v1beta1 status holds
// v1beta1 conditions at spoke and whose v1beta2 status holds conditions at hub: v1beta1 readers
// that find no v1beta1 conditions recorded see them derived by mapping (Capstan keeps no
// deprecated v1beta1 status to show instead).
func DerivedConditions[SpokeStatus, HubStatus any](spoke func(*SpokeStatus) *Conditions, hub func(*HubStatus) []metav1.Condition,
	mapping ...DerivedCondition) conversion.StatusDerivation[SpokeStatus, HubStatus] {
	return derivedConditions[SpokeStatus, HubStatus]{spoke: spoke, hub: hub, mapping: mapping}
}

type derivedConditions[SpokeStatus, HubStatus any] struct {
	spoke   func(*SpokeStatus) *Conditions
	hub     func(*HubStatus) []metav1.Condition
	mapping []DerivedCondition
}

func (d derivedConditions[S, H]) Show(hub *H, spoke *S) {
	if c := d.spoke(spoke); len(*c) == 0 {
		if derived := DeriveConditions(d.hub(hub), d.mapping); len(derived) > 0 {
			*c = derived
		}
	}
}

func (d derivedConditions[S, H]) Strip(hub *H, spoke *S) {
	if c := d.spoke(spoke); len(*c) > 0 && equality.Semantic.DeepEqual(*c, DeriveConditions(d.hub(hub), d.mapping)) {
		*c = nil
	}
}
