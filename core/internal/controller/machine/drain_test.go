package machine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// drainNode against the real API server: one pass evicts what it may, names the
// PodDisruptionBudget that blocks the rest, and leaves DaemonSet and mirror pods.
func TestDrainNode_EvictsUnguardedPodsAndNamesTheBlockingPDB(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "drainpass")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-n"}}
	require.NoError(t, env.Client.Create(ctx, node))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), node) })
	mk := func(name string, labels, annotations map[string]string, owner *metav1.OwnerReference, ready bool) {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: annotations},
			Spec: corev1.PodSpec{NodeName: node.Name, TerminationGracePeriodSeconds: ptr.To[int64](0),
				Containers: []corev1.Container{{Name: "c", Image: "example.invalid/app:1"}}},
		}
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		require.NoError(t, env.Client.Create(ctx, p))
		if ready {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			require.NoError(t, env.Client.Status().Update(ctx, p))
		}
	}
	mk("plain", nil, nil, nil, true)
	mk("guarded", map[string]string{"app": "web"}, nil, nil, true)
	mk("daemon", nil, nil, &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "d1", Controller: ptr.To(true)}, true)
	mk("static", nil, map[string]string{mirrorPodAnnotation: "x"}, nil, true)
	minAvailable := intstr.FromInt32(1)
	require.NoError(t, env.Client.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web-pdb", Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}))
	evict := newEvictor(func(context.Context) (*rest.Config, error) { return env.Config, nil })

	progress, err := drainNode(ctx, env.Client, evict, node, nil, time.Now())
	require.NoError(t, err)
	require.Equal(t, "evicted 1 pods; eviction blocked by PodDisruptionBudget for "+ns+"/guarded (PDB web-pdb)", progress)

	cur := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(node), cur))
	require.True(t, cur.Spec.Unschedulable)
	pods := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, pods, client.InNamespace(ns)))
	var left []string
	for _, p := range pods.Items {
		left = append(left, p.Name)
	}
	require.ElementsMatch(t, []string{"guarded", "daemon", "static"}, left)
}
