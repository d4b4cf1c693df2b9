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
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

func templateMetaUp(in ObjectMeta) clusterv1.ObjectMeta {
	return clusterv1.ObjectMeta{Labels: copyMap(in.Labels), Annotations: copyMap(in.Annotations)}
}

func templateMetaDown(in clusterv1.ObjectMeta) ObjectMeta {
	return ObjectMeta{Labels: copyMap(in.Labels), Annotations: copyMap(in.Annotations)}
}

func copyMap(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func selectorUp(in metav1.LabelSelector) clusterv1.LabelSelector {
	out := clusterv1.LabelSelector{MatchLabels: copyMap(in.MatchLabels)}
	for _, e := range in.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, clusterv1.LabelSelectorRequirement{
			Key: e.Key, Operator: clusterv1.LabelSelectorOperator(e.Operator), Values: append([]string(nil), e.Values...),
		})
	}
	return out
}

func selectorDown(in clusterv1.LabelSelector) metav1.LabelSelector {
	return *in.ToMetav1()
}

// replicaCounters are the v1beta2 replica counters that v1beta1 shows under status.v1beta2.
type replicaCounters struct {
	ready, available, upToDate *int32
}

func v1beta2StatusEmpty(conditions []metav1.Condition, c replicaCounters) bool {
	return len(conditions) == 0 && c.ready == nil && c.available == nil && c.upToDate == nil
}

// unavailable is the v1beta1 unavailableReplicas derived from the v1beta2 counters.
func unavailable(replicas, available *int32) int32 {
	if u := conversion.Deref(replicas) - conversion.Deref(available); u > 0 {
		return u
	}
	return 0
}

// kindConversion is one kind's spec and status conversions; up and down are the steps every
// kind of every provider shares (conversion.Steps).
type kindConversion[SpokeSpec, SpokeStatus, HubSpec, HubStatus any] struct {
	specUp   func(in *SpokeSpec, restored *HubSpec) (HubSpec, error)
	specDown func(ctx context.Context, in *HubSpec, namespace string, stored *SpokeSpec,
		resolver conversion.APIVersionResolver) (SpokeSpec, error)
	statusUp   func(in *SpokeStatus, restored *HubStatus) HubStatus
	statusDown func(in *HubStatus) SpokeStatus
}

func (k kindConversion[SS, SSt, HS, HSt]) steps() conversion.Steps[SS, SSt, HS, HSt] {
	return conversion.Steps[SS, SSt, HS, HSt]{SpecUp: k.specUp, SpecDown: k.specDown, StatusUp: k.statusUp, StatusDown: k.statusDown}
}

func (k kindConversion[SS, SSt, HS, HSt]) up(srcMeta *metav1.ObjectMeta, srcSpec *SS, srcStatus *SSt,
	dstMeta *metav1.ObjectMeta, dstSpec *HS, dstStatus *HSt) error {
	return k.steps().Up(srcMeta, srcSpec, srcStatus, dstMeta, dstSpec, dstStatus)
}

func (k kindConversion[SS, SSt, HS, HSt]) down(ctx context.Context, resolver conversion.APIVersionResolver, hub runtime.Object,
	srcMeta *metav1.ObjectMeta, srcSpec *HS, srcStatus *HSt, dstMeta *metav1.ObjectMeta, dstSpec *SS, dstStatus *SSt) error {
	return k.steps().Down(ctx, resolver, hub, srcMeta, srcSpec, srcStatus, dstMeta, dstSpec, dstStatus)
}
