package drainrules

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func pod(ns, name string, l map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l}}
}

func rule(t *testing.T, name string, behavior clusterv1.MachineDrainRuleDrainBehavior, order int32, app string) Rule {
	t.Helper()
	sel, err := compileSelector(name, "spec.pods[0].selector", &clusterv1.LabelSelector{MatchLabels: map[string]string{"app": app}})
	require.NoError(t, err)
	return Rule{Name: name, Behavior: behavior, Order: order, pods: []podSelector{{pod: sel, namespace: labels.Everything()}}}
}

// TestDecide_LabelFirstThenTheFirstRuleThenDrainInOrderZero: the drain label (any case) beats
// every rule, an unknown label value is ignored, the first selecting rule decides, and a
// WaitCompleted rule's order does not count.
func TestDecide_LabelFirstThenTheFirstRuleThenDrainInOrderZero(t *testing.T) {
	rules := []Rule{
		rule(t, "a-wait", clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, 7, "job"),
		rule(t, "b-late", clusterv1.MachineDrainRuleDrainBehaviorDrain, 10, "db"),
		rule(t, "c-skip", clusterv1.MachineDrainRuleDrainBehaviorSkip, 0, "db"),
	}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   PodDrain
	}{
		{"label skip beats a rule", map[string]string{"app": "db", clusterv1.PodDrainLabel: "SKIP"},
			PodDrain{Behavior: clusterv1.MachineDrainRuleDrainBehaviorSkip, DecidedBy: "label cluster.x-k8s.io/drain=SKIP"}},
		{"label wait-completed", map[string]string{clusterv1.PodDrainLabel: "wait-completed"},
			PodDrain{Behavior: clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, DecidedBy: "label cluster.x-k8s.io/drain=wait-completed"}},
		{"unknown label value, first rule by name", map[string]string{"app": "db", clusterv1.PodDrainLabel: "later"},
			PodDrain{Behavior: clusterv1.MachineDrainRuleDrainBehaviorDrain, Order: 10, DecidedBy: "MachineDrainRule b-late"}},
		{"WaitCompleted is order 0", map[string]string{"app": "job"},
			PodDrain{Behavior: clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, DecidedBy: "MachineDrainRule a-wait"}},
		{"no label, no rule", map[string]string{"app": "web"}, PodDrain{Behavior: clusterv1.MachineDrainRuleDrainBehaviorDrain}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("ns", "p", tc.labels)
			tc.want.Pod = p
			require.Equal(t, tc.want, decide(p, rules, nil))
		})
	}
}

// TestPlanPass_EvictsTheLowestOrderFirst: Skip Pods neither count nor wait, WaitCompleted and
// terminating Pods are waited for, and only the lowest order is evicted now (a WaitCompleted
// Pod counts as order 0, so a higher group waits for it).
func TestPlanPass_EvictsTheLowestOrderFirst(t *testing.T) {
	terminating := pod("ns", "gone", nil)
	terminating.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	d := func(p *corev1.Pod, b clusterv1.MachineDrainRuleDrainBehavior, order int32) PodDrain {
		return PodDrain{Pod: p, Behavior: b, Order: order}
	}
	skip := d(pod("ns", "skip", nil), clusterv1.MachineDrainRuleDrainBehaviorSkip, -5)
	wait := d(pod("ns", "wait", nil), clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, 0)
	first := d(pod("ns", "first", nil), clusterv1.MachineDrainRuleDrainBehaviorDrain, 0)
	later := d(pod("ns", "later", nil), clusterv1.MachineDrainRuleDrainBehaviorDrain, 10)
	term := d(terminating, clusterv1.MachineDrainRuleDrainBehaviorDrain, 0)

	got := PlanPass([]PodDrain{skip, wait, first, later, term})
	require.Equal(t, Plan{EvictNow: []PodDrain{first}, Terminating: []PodDrain{term}, WaitCompleted: []PodDrain{wait}, Later: []PodDrain{later}}, got)
}

// TestSelectingPDBs_OnlyBudgetsOfThePodsNamespaceWithASelector: a budget of another namespace
// or with an empty selector selects nothing; the rest come sorted by name.
func TestSelectingPDBs_OnlyBudgetsOfThePodsNamespaceWithASelector(t *testing.T) {
	budget := func(ns, name string, sel *metav1.LabelSelector) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
	}
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	pdbs := []policyv1.PodDisruptionBudget{
		budget("ns", "z-web", web), budget("other", "web", web), budget("ns", "empty", &metav1.LabelSelector{}),
		budget("ns", "a-web", web), budget("ns", "db", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}),
	}
	var names []string
	for _, p := range SelectingPDBs(pdbs, pod("ns", "p", map[string]string{"app": "web"})) {
		names = append(names, p.Name)
	}
	require.Equal(t, []string{"a-web", "z-web"}, names)
}
