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

package machine

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// syncTaints propagates m's spec.taints to node (in memory), as upstream's taint propagation
// proposal specifies. Always taints are kept on the Node, with the Machine's value, and recorded
// in TaintsFromMachineAnnotation; a recorded taint the Machine no longer has is removed, and one
// that became OnInitialization is kept but no longer recorded. OnInitialization taints are added
// once: when the annotation is first written (the Node's first sync, or a Node that registered
// again). Taints the Machine never listed are left alone, whoever put them there.
func syncTaints(m *clusterv1.Machine, node *corev1.Node) {
	raw, initialized := node.Annotations[clusterv1.TaintsFromMachineAnnotation]
	recorded := map[string]bool{}
	for _, k := range strings.Split(raw, ",") {
		if k != "" {
			recorded[k] = true
		}
	}
	wanted := map[string]clusterv1.MachineTaint{}
	for _, t := range m.Spec.Taints {
		wanted[taintKey(t.Key, t.Effect)] = t
	}
	// Drop the recorded taints the Machine no longer lists.
	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool {
		k := taintKey(t.Key, t.Effect)
		_, listed := wanted[k]
		return recorded[k] && !listed
	})
	var nowRecorded []string
	for _, t := range m.Spec.Taints {
		always := t.Propagation == clusterv1.MachineTaintPropagationAlways
		if always || !initialized {
			setTaint(node, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		if always {
			nowRecorded = append(nowRecorded, taintKey(t.Key, t.Effect))
		}
	}
	slices.Sort(nowRecorded)
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[clusterv1.TaintsFromMachineAnnotation] = strings.Join(nowRecorded, ",")
}

// taintKey is how a taint is recorded: a Node holds one taint per key and effect.
func taintKey(key string, effect corev1.TaintEffect) string { return key + ":" + string(effect) }

// setTaint puts t on node, replacing the value of a taint with its key and effect.
func setTaint(node *corev1.Node, t corev1.Taint) {
	for i := range node.Spec.Taints {
		if node.Spec.Taints[i].MatchTaint(&t) {
			node.Spec.Taints[i].Value = t.Value
			return
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, t)
}

// annotationEntry is the annotation key of node as a map (nil when absent), so that an absent
// annotation and an empty one compare different.
func annotationEntry(node *corev1.Node, key string) map[string]string {
	v, ok := node.Annotations[key]
	if !ok {
		return nil
	}
	return map[string]string{key: v}
}
