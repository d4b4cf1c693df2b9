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
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func machineTaint(key, value string, p clusterv1.MachineTaintPropagation) clusterv1.MachineTaint {
	return clusterv1.MachineTaint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule, Propagation: p}
}

func nodeTaint(key, value string) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// TestSyncTaints_FollowsThePropagationOfEachTaint runs the matrix of upstream's proposal: taint
// kind (Always, OnInitialization) times operation (add, remove, change kind, change value), on a
// Node that was or was not initialized (TaintsFromMachineAnnotation present).
func TestSyncTaints_FollowsThePropagationOfEachTaint(t *testing.T) {
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
			syncTaints(&clusterv1.Machine{Spec: clusterv1.MachineSpec{Taints: tt.machine}}, node)
			require.ElementsMatch(t, tt.wantTaints, node.Spec.Taints)
			require.Equal(t, tt.wantTracked, node.Annotations[clusterv1.TaintsFromMachineAnnotation])
		})
	}
}

// TestSyncNode_PropagatesTaintsOnceAndThenWritesNothing: the Node gets the taints with the
// annotation in one write guarded by its resourceVersion; a second sync writes nothing.
func TestSyncNode_PropagatesTaintsOnceAndThenWritesNothing(t *testing.T) {
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{clusterv1.NodeUninitializedTaint}}}
	c := fake.NewClientBuilder().WithObjects(node).Build()
	m := &clusterv1.Machine{Spec: clusterv1.MachineSpec{Taints: []clusterv1.MachineTaint{
		machineTaint("gpu", "true", clusterv1.MachineTaintPropagationAlways),
		machineTaint("init", "", clusterv1.MachineTaintPropagationOnInitialization),
	}}}
	cur := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, cur))
	stale := cur.DeepCopy()
	require.NoError(t, syncNode(ctx, c, m, cur))

	got := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.ElementsMatch(t, []corev1.Taint{nodeTaint("gpu", "true"), nodeTaint("init", "")}, got.Spec.Taints, "the uninitialized taint goes, the Machine's come")
	require.Equal(t, "gpu:NoSchedule", got.Annotations[clusterv1.TaintsFromMachineAnnotation])

	rv := got.ResourceVersion
	require.NoError(t, syncNode(ctx, c, m, got))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.Equal(t, rv, got.ResourceVersion, "in sync: no write")

	// A sync from a stale read must not overwrite taints someone else wrote meanwhile.
	stale.Spec.Taints = nil
	require.Error(t, syncNode(ctx, c, &clusterv1.Machine{}, stale), "the write of a stale Node is refused")
}

func strPtr(s string) *string { return &s }
