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

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// How every kind converts (see package conversion for the annotation):
//
//   - up (v1beta1 -> v1beta2): the v1beta2 object recorded in the annotation, if any, settles what
//     v1beta1 cannot say (false vs unset, 0 vs unset, v1beta2-only fields); the v1beta1 spec and
//     status are then recorded on the v1beta2 object;
//   - down (v1beta2 -> v1beta1): fields are mapped; where the v1beta1 spec or status recorded on the
//     object still converts up to exactly the current v1beta2 one, it is returned as written (so
//     nothing a v1beta1 client wrote is lost, and nothing recorded can be stale: once a v1beta2
//     client changed the spec, the mapping wins, keeping only references and durations that still
//     mean the same); the v1beta2 object is then recorded on the v1beta1 one.

// spokeData is what a v1beta2 object keeps of the v1beta1 object it was last written as.
type spokeData[Spec, Status any] struct {
	Spec   Spec   `json:"spec"`
	Status Status `json:"status"`
}

// prefer returns stored when it converts up to current, else mapped.
func prefer[T, H any](mapped T, stored *T, up func(*T) (H, error), current H) T {
	if stored == nil {
		return mapped
	}
	converted, err := up(stored)
	if err != nil || !equality.Semantic.DeepEqual(converted, current) {
		return mapped
	}
	return *stored
}

// noErr adapts a conversion that cannot fail to prefer.
func noErr[T, H any](f func(*T) H) func(*T) (H, error) {
	return func(in *T) (H, error) { return f(in), nil }
}

func copyMeta(in *metav1.ObjectMeta) metav1.ObjectMeta { return *in.DeepCopy() }

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
// kind shares (the annotation, and preferring what a v1beta1 client wrote while it still holds).
type kindConversion[SpokeSpec, SpokeStatus, HubSpec, HubStatus any] struct {
	specUp   func(in *SpokeSpec, restored *HubSpec) (HubSpec, error)
	specDown func(ctx context.Context, in *HubSpec, namespace string, stored *SpokeSpec,
		resolver conversion.APIVersionResolver) (SpokeSpec, error)
	statusUp   func(in *SpokeStatus, restored *HubStatus) HubStatus
	statusDown func(in *HubStatus) SpokeStatus
}

// hubData is the v1beta2 object recorded on a v1beta1 one, as far as conversions read it.
type hubData[Spec, Status any] struct {
	Spec   Spec   `json:"spec"`
	Status Status `json:"status"`
}

func (k kindConversion[SS, SSt, HS, HSt]) up(srcMeta *metav1.ObjectMeta, srcSpec *SS, srcStatus *SSt,
	dstMeta *metav1.ObjectMeta, dstSpec *HS, dstStatus *HSt) error {
	*dstMeta = copyMeta(srcMeta)
	restored := &hubData[HS, HSt]{}
	if _, err := conversion.UnmarshalData(dstMeta, restored); err != nil {
		return err
	}
	spec, err := k.specUp(srcSpec, &restored.Spec)
	if err != nil {
		return err
	}
	*dstSpec = spec
	*dstStatus = k.statusUp(srcStatus, &restored.Status)
	return conversion.MarshalData(spokeData[SS, SSt]{Spec: *srcSpec, Status: *srcStatus}, dstMeta)
}

func (k kindConversion[SS, SSt, HS, HSt]) down(ctx context.Context, resolver conversion.APIVersionResolver, hub runtime.Object,
	srcMeta *metav1.ObjectMeta, srcSpec *HS, srcStatus *HSt, dstMeta *metav1.ObjectMeta, dstSpec *SS, dstStatus *SSt) error {
	*dstMeta = copyMeta(srcMeta)
	stored := &spokeData[SS, SSt]{}
	has, err := conversion.UnmarshalData(dstMeta, stored)
	if err != nil {
		return err
	}
	var storedSpec *SS
	var storedStatus *SSt
	if has {
		storedSpec, storedStatus = &stored.Spec, &stored.Status
	}
	spec, err := k.specDown(ctx, srcSpec, srcMeta.Namespace, storedSpec, resolver)
	if err != nil {
		return err
	}
	*dstSpec = prefer(spec, storedSpec, func(s *SS) (HS, error) { return k.specUp(s, srcSpec) }, *srcSpec)
	*dstStatus = prefer(k.statusDown(srcStatus), storedStatus, noErr(func(s *SSt) HSt { return k.statusUp(s, srcStatus) }), *srcStatus)
	return conversion.MarshalHubData(hub, dstMeta)
}
