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

package nodetaints

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Sync propagates taints (a Machine's spec.taints, or a MachinePool template's) to node, in
// memory. Always taints are kept on the Node, with the spec's value, and recorded in
// TaintsFromMachineAnnotation; a recorded taint the spec no longer has is removed, and one that
// became OnInitialization is kept but no longer recorded. OnInitialization taints are added
// once: when the annotation is first written (the Node's first sync, or a Node that registered
// again). Taints the spec never listed are left alone, whoever put them there.
func Sync(taints []clusterv1.MachineTaint, node *corev1.Node) {
	raw, initialized := node.Annotations[clusterv1.TaintsFromMachineAnnotation]
	recorded := map[string]bool{}
	for _, k := range strings.Split(raw, ",") {
		if k != "" {
			recorded[k] = true
		}
	}
	wanted := map[string]clusterv1.MachineTaint{}
	for _, t := range taints {
		wanted[key(t.Key, t.Effect)] = t
	}
	// Drop the recorded taints the spec no longer lists.
	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool {
		k := key(t.Key, t.Effect)
		_, listed := wanted[k]
		return recorded[k] && !listed
	})
	var nowRecorded []string
	for _, t := range taints {
		always := t.Propagation == clusterv1.MachineTaintPropagationAlways
		if always || !initialized {
			set(node, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		if always {
			nowRecorded = append(nowRecorded, key(t.Key, t.Effect))
		}
	}
	slices.Sort(nowRecorded)
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[clusterv1.TaintsFromMachineAnnotation] = strings.Join(nowRecorded, ",")
}

// RemoveUninitialized removes the taint the bootstrap provider registered a worker with
// (clusterv1.NodeUninitializedTaint) from node, in memory.
func RemoveUninitialized(node *corev1.Node) {
	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool {
		return t.MatchTaint(&clusterv1.NodeUninitializedTaint)
	})
}

// Equal says whether a and b have the same taints and the same record of propagated ones (an
// absent record and an empty one differ: the first means the Node was never synced).
func Equal(a, b *corev1.Node) bool {
	return equality.Semantic.DeepEqual(a.Spec.Taints, b.Spec.Taints) &&
		maps.Equal(recordOf(a), recordOf(b))
}

// key is how a taint is recorded: a Node holds one taint per key and effect.
func key(k string, effect corev1.TaintEffect) string { return k + ":" + string(effect) }

// set puts t on node, replacing the value of a taint with its key and effect.
func set(node *corev1.Node, t corev1.Taint) {
	for i := range node.Spec.Taints {
		if node.Spec.Taints[i].MatchTaint(&t) {
			node.Spec.Taints[i].Value = t.Value
			return
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, t)
}

// recordOf is the node's TaintsFromMachineAnnotation as a map (nil when absent), so that an
// absent annotation and an empty one compare different.
func recordOf(node *corev1.Node) map[string]string {
	v, ok := node.Annotations[clusterv1.TaintsFromMachineAnnotation]
	if !ok {
		return nil
	}
	return map[string]string{clusterv1.TaintsFromMachineAnnotation: v}
}
