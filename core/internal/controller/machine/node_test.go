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

func TestIsManagedLabel(t *testing.T) {
	for key, want := range map[string]bool{
		"node-role.kubernetes.io/worker":         true,
		"node-restriction.kubernetes.io/zone":    true,
		"foo.node-restriction.kubernetes.io/bar": true,
		"node.cluster.x-k8s.io/pool":             true,
		"sub.node.cluster.x-k8s.io/x":            true,
		"app":                                    false,
		"cluster.x-k8s.io/cluster-name":          false,
		"evilnode.cluster.x-k8s.io/x":            false,
	} {
		require.Equal(t, want, isManagedLabel(key), key)
	}
}

// Unit test with the fake client: the Node logic is pure object manipulation.
func TestSyncNode_AddsManagedLabelsRemovesStaleOnesAndTheTaint(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1",
			Labels:      map[string]string{"node.cluster.x-k8s.io/old": "x", "kubernetes.io/hostname": "n1"},
			Annotations: map[string]string{clusterv1.LabelsFromMachineAnnotation: "node.cluster.x-k8s.io/old"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{clusterv1.NodeUninitializedTaint, {Key: "keep", Effect: corev1.TaintEffectNoSchedule}}},
	}
	c := fake.NewClientBuilder().WithObjects(node).Build()
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
		"node-role.kubernetes.io/worker": "", "app": "web"}}}
	ctx := context.Background()
	cur := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, cur))
	require.NoError(t, syncNode(ctx, c, m, cur))

	got := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.Equal(t, map[string]string{"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": "n1"}, got.Labels)
	require.Equal(t, "node-role.kubernetes.io/worker", got.Annotations[clusterv1.LabelsFromMachineAnnotation])
	require.Equal(t, []corev1.Taint{{Key: "keep", Effect: corev1.TaintEffectNoSchedule}}, got.Spec.Taints)

	// In sync: no write.
	rv := got.ResourceVersion
	require.NoError(t, syncNode(ctx, c, m, got))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.Equal(t, rv, got.ResourceVersion)
}
