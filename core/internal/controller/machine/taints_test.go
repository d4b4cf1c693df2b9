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
	require.NoError(t, syncNode(ctx, c, m, cur, nodeMetadata{}))

	got := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.ElementsMatch(t, []corev1.Taint{nodeTaint("gpu", "true"), nodeTaint("init", "")}, got.Spec.Taints, "the uninitialized taint goes, the Machine's come")
	require.Equal(t, "gpu:NoSchedule", got.Annotations[clusterv1.TaintsFromMachineAnnotation])

	rv := got.ResourceVersion
	require.NoError(t, syncNode(ctx, c, m, got, nodeMetadata{}))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.Equal(t, rv, got.ResourceVersion, "in sync: no write")

	// A sync from a stale read must not overwrite taints someone else wrote meanwhile.
	stale.Spec.Taints = nil
	require.Error(t, syncNode(ctx, c, &clusterv1.Machine{}, stale, nodeMetadata{}), "the write of a stale Node is refused")
}
