package machine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
	"capstan.dev/core/internal/drainrules"
)

// drainNode against the real API server: one pass evicts what it may and names, for each Pod it
// cannot evict, why; it leaves DaemonSet and mirror pods. A refused eviction does not stop the
// pass: the API server refuses a Pod that a PodDisruptionBudget protects (429), one that two
// budgets select (500) and one in a Namespace being deleted (403), and the Pod listed after all
// of them is evicted all the same.
func TestDrainNode_EvictsAroundRefusedEvictionsAndNamesEachPodAndWhy(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "drainpass")
	// Listed first (Pods come sorted by namespace), so a pass that stopped at the first
	// refusal would evict nothing.
	doomed := env.CreateNamespace(t, "a-doomed")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-n"}}
	require.NoError(t, env.Client.Create(ctx, node))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), node) })
	// Healthy (Ready) pods: the eviction API only lets a PDB protect running pods.
	mk := func(namespace, name string, labels map[string]string, mutate ...func(*corev1.Pod)) {
		p := createPodOn(t, node.Name, namespace, name, labels, mutate...)
		envtest.UpdateStatus(t, env.Client, p, func() {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		})
	}
	mk(doomed, "leftover", nil)
	mk(ns, "guarded", map[string]string{"app": "web"})
	mk(ns, "multi", map[string]string{"app": "db"})
	mk(ns, "plain", nil)
	mk(ns, "daemon", nil, coretest.ControlledBy("DaemonSet", "ds"))
	mk(ns, "static", nil, func(p *corev1.Pod) { p.Annotations = map[string]string{drainrules.MirrorPodAnnotation: "x"} })
	minAvailable := intstr.FromInt32(1)
	for name, app := range map[string]string{"web-pdb": "web", "db-pdb-a": "db", "db-pdb-b": "db"} {
		require.NoError(t, env.Client.Create(ctx, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		}))
	}
	terminate(t, doomed)
	evict := newEvictor(func(context.Context) (*rest.Config, error) { return env.Config, nil })

	progress, err := drainNode(ctx, env.Client, evict, node, nil, time.Now())
	require.NoError(t, err)
	require.Equal(t, "evicted 1 pods; "+
		"cannot evict "+ns+"/guarded: Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web-pdb is still being processed by the server.; "+
		"cannot evict "+doomed+"/leftover: Namespace "+doomed+" is being deleted and refuses evictions; the namespace controller deletes the Pod; "+
		"cannot evict "+ns+"/multi: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support. (PodDisruptionBudgets db-pdb-a, db-pdb-b)",
		progress)

	cur := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(node), cur))
	require.True(t, cur.Spec.Unschedulable)
	require.ElementsMatch(t, []string{"guarded", "multi", "daemon", "static"}, podsLeft(t, ns))
	require.ElementsMatch(t, []string{"leftover"}, podsLeft(t, doomed))
}

// terminate deletes a namespace and waits until the API server refuses to create anything in it,
// as it does with evictions there: without kube-controller-manager it stays Terminating.
func terminate(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, env.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	envtest.WaitFor(t, 30*time.Second, "namespace "+ns+" to refuse new objects", func() (bool, error) {
		probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: ns}}
		err := env.Client.Create(ctx, probe)
		if err == nil {
			return false, env.Client.Delete(ctx, probe)
		}
		return apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause), nil
	})
}

// TestDescribeEvictionFailures_NamesAtMostFiveReasonsAndCountsTheRest: a Node with many failing
// Pods gives a message of bounded length.
func TestDescribeEvictionFailures_NamesAtMostFiveReasonsAndCountsTheRest(t *testing.T) {
	failed := map[string][]drainrules.PodDrain{}
	for i := range 7 {
		for j := range i + 1 {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d-%d", i, j)}}
			failed[fmt.Sprintf("reason %d", i)] = append(failed[fmt.Sprintf("reason %d", i)], drainrules.PodDrain{Pod: pod})
		}
	}
	got := describeEvictionFailures(failed)
	require.Equal(t, []string{
		"cannot evict ns/p0-0: reason 0",
		"cannot evict ns/p1-0, ns/p1-1: reason 1",
		"cannot evict ns/p2-0, ns/p2-1, ns/p2-2: reason 2",
		"cannot evict ns/p3-0, ns/p3-1, ns/p3-2, ns/p3-3: reason 3",
		"cannot evict ns/p4-0, ns/p4-1, ns/p4-2, ns/p4-3, ns/p4-4: reason 4",
		"2 more eviction errors for 13 pods",
	}, got)
}
