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
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func machineTaint(key, value string, p clusterv1.MachineTaintPropagation) clusterv1.MachineTaint {
	return clusterv1.MachineTaint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule, Propagation: p}
}

func nodeTaint(key, value string) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// TestSync_FollowsThePropagationOfEachTaint runs the matrix of upstream's proposal: taint
// kind (Always, OnInitialization) times operation (add, remove, change kind, change value), on a
// Node that was or was not initialized (TaintsFromMachineAnnotation present).
func TestSync_FollowsThePropagationOfEachTaint(t *testing.T) {
	always, onInit := clusterv1.MachineTaintPropagationAlways, clusterv1.MachineTaintPropagationOnInitialization
	foreign := corev1.Taint{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute}
	tests := []struct {
		name        string
		machine     []clusterv1.MachineTaint
		node        []corev1.Taint
		annotation  *string // nil: absent
		wantTaints  []corev1.Taint
		wantTracked string
	}{
		{"FirstSyncAddsBothKinds", []clusterv1.MachineTaint{machineTaint("gpu", "true", always), machineTaint("init", "", onInit)},
			[]corev1.Taint{foreign}, nil, []corev1.Taint{foreign, nodeTaint("gpu", "true"), nodeTaint("init", "")}, "gpu:NoSchedule"},
		{"AnAlwaysTaintRemovedFromTheNodeComesBack", []clusterv1.MachineTaint{machineTaint("gpu", "true", always)},
			[]corev1.Taint{foreign}, strPtr("gpu:NoSchedule"), []corev1.Taint{foreign, nodeTaint("gpu", "true")}, "gpu:NoSchedule"},
		{"AnOnInitializationTaintRemovedFromTheNodeStaysAway", []clusterv1.MachineTaint{machineTaint("init", "", onInit)},
			[]corev1.Taint{foreign}, strPtr(""), []corev1.Taint{foreign}, ""},
		{"AnOnInitializationTaintAddedLaterIsNotAdded", []clusterv1.MachineTaint{machineTaint("init", "", onInit)},
			nil, strPtr(""), nil, ""},
		{"AnAlwaysTaintRemovedFromTheMachineGoes", nil,
			[]corev1.Taint{nodeTaint("gpu", "true"), foreign}, strPtr("gpu:NoSchedule"), []corev1.Taint{foreign}, ""},
		{"AnUnrecordedTaintIsNotTheMachinesToRemove", nil,
			[]corev1.Taint{nodeTaint("gpu", "true")}, strPtr(""), []corev1.Taint{nodeTaint("gpu", "true")}, ""},
		{"AlwaysBecomingOnInitializationStaysButIsNoLongerRecorded", []clusterv1.MachineTaint{machineTaint("gpu", "true", onInit)},
			[]corev1.Taint{nodeTaint("gpu", "true")}, strPtr("gpu:NoSchedule"), []corev1.Taint{nodeTaint("gpu", "true")}, ""},
		{"OnInitializationBecomingAlwaysIsAddedAndRecorded", []clusterv1.MachineTaint{machineTaint("gpu", "true", always)},
			nil, strPtr(""), []corev1.Taint{nodeTaint("gpu", "true")}, "gpu:NoSchedule"},
		{"AnAlwaysTaintsValueFollowsTheMachine", []clusterv1.MachineTaint{machineTaint("gpu", "false", always)},
			[]corev1.Taint{nodeTaint("gpu", "true")}, strPtr("gpu:NoSchedule"), []corev1.Taint{nodeTaint("gpu", "false")}, "gpu:NoSchedule"},
		{"ANodeThatRegisteredAgainGetsTheOnInitializationTaintsAgain", []clusterv1.MachineTaint{machineTaint("init", "", onInit)},
			nil, nil, []corev1.Taint{nodeTaint("init", "")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tt.node}}
			if tt.annotation != nil {
				node.Annotations = map[string]string{clusterv1.TaintsFromMachineAnnotation: *tt.annotation}
			}
			Sync(tt.machine, node)
			require.ElementsMatch(t, tt.wantTaints, node.Spec.Taints)
			require.Equal(t, tt.wantTracked, node.Annotations[clusterv1.TaintsFromMachineAnnotation])
		})
	}
}

// TestRemoveUninitialized_RemovesOnlyTheBootstrapProvidersTaint: the uninitialized taint goes
// whatever its value; other taints with other keys or effects stay.
func TestRemoveUninitialized_RemovesOnlyTheBootstrapProvidersTaint(t *testing.T) {
	other := corev1.Taint{Key: clusterv1.NodeUninitializedTaint.Key, Effect: corev1.TaintEffectNoExecute}
	node := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{
		nodeTaint("gpu", "true"), clusterv1.NodeUninitializedTaint, other,
	}}}
	RemoveUninitialized(node)
	require.Equal(t, []corev1.Taint{nodeTaint("gpu", "true"), other}, node.Spec.Taints)

	node = &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{clusterv1.NodeUninitializedTaint}}}
	RemoveUninitialized(node)
	require.Empty(t, node.Spec.Taints)
}

// TestEqual_AnAbsentRecordDiffersFromAnEmptyOne: a Node never synced has no record; after its
// first sync it has one (maybe empty), and that write must not be skipped.
func TestEqual_AnAbsentRecordDiffersFromAnEmptyOne(t *testing.T) {
	never := &corev1.Node{}
	synced := &corev1.Node{}
	synced.Annotations = map[string]string{clusterv1.TaintsFromMachineAnnotation: ""}
	require.False(t, Equal(never, synced))
	require.True(t, Equal(synced, synced.DeepCopy()))
	tainted := synced.DeepCopy()
	tainted.Spec.Taints = []corev1.Taint{nodeTaint("gpu", "true")}
	require.False(t, Equal(synced, tainted))
}

func strPtr(s string) *string { return &s }
