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
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// The helpers below are shared by the core kinds' mappings; the steps every kind shares (the
// annotation, preferring what a v1beta1 client wrote) are conversion.KindConversion.

func templateMetaUp(in ObjectMeta) clusterv1.ObjectMeta {
	return clusterv1.ObjectMeta{Labels: maps.Clone(in.Labels), Annotations: maps.Clone(in.Annotations)}
}

func templateMetaDown(in clusterv1.ObjectMeta) ObjectMeta {
	return ObjectMeta{Labels: maps.Clone(in.Labels), Annotations: maps.Clone(in.Annotations)}
}

func selectorUp(in metav1.LabelSelector) clusterv1.LabelSelector {
	return clusterv1.LabelSelectorFromMetav1(in)
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

// recordedFor is the recorded element for the i-th element of a list keyed by same (a name or
// class): the one at the same place when it has that key, else the first with it. The place
// decides first so that duplicate keys, which the schema refuses but a fuzzer makes, still pair
// up. ok is false when nothing was recorded for it.
func recordedFor[T any](list []T, i int, same func(*T) bool) (out T, ok bool) {
	if i < len(list) && same(&list[i]) {
		return list[i], true
	}
	for j := range list {
		if same(&list[j]) {
			return list[j], true
		}
	}
	return out, false
}

// recordedOr is recordedFor's element, the zero value when there is none.
func recordedOr[T any](list []T, i int, same func(*T) bool) T {
	v, _ := recordedFor(list, i, same)
	return v
}
